/**
 * Prints terms in canonical Rego. The AST keeps no parentheses, so they are put
 * back from operator precedence (OPA's, loosest first): `in` < comparisons < `|`
 * < `&` < `+ -` < `* / %`, all left-associative.
 */
import type { Body, Expr, Term } from "../ast.js";

const INFIX: Record<string, { op: string; prec: number }> = {
  equal: { op: "==", prec: 2 },
  neq: { op: "!=", prec: 2 },
  lt: { op: "<", prec: 2 },
  gt: { op: ">", prec: 2 },
  lte: { op: "<=", prec: 2 },
  gte: { op: ">=", prec: 2 },
  or: { op: "|", prec: 3 },
  and: { op: "&", prec: 4 },
  plus: { op: "+", prec: 5 },
  minus: { op: "-", prec: 5 },
  mul: { op: "*", prec: 6 },
  div: { op: "/", prec: 6 },
  rem: { op: "%", prec: 6 },
};
const IN_PREC = 1;
/** Precedence of a term that is not an operator application. */
const ATOM = 100;

const KEYWORDS = new Set([
  "as", "default", "else", "false", "import", "package", "not", "null", "true", "with",
  "some", "in", "every", "if", "contains",
]);
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The infix form of a call, when it has one: operator and its operands. */
export function infixOf(operator: readonly string[], args: readonly Term[]): { op: string; prec: number } | null {
  if (operator.length === 2 && operator[0] === "internal") {
    if (operator[1] === "member_2" && args.length === 2) return { op: "in", prec: IN_PREC };
    if (operator[1] === "member_3" && args.length === 3) return { op: "in", prec: IN_PREC };
    return null;
  }
  if (operator.length !== 1 || args.length !== 2) return null;
  return INFIX[operator[0]!] ?? null;
}

function precOf(t: Term): number {
  if (t.type !== "call") return ATOM;
  return infixOf(t.operator, t.args)?.prec ?? ATOM;
}

/** Prints `operator(args)` or its infix form; `prec` is what the context demands. */
export function printCall(operator: readonly string[], args: readonly Term[], context: number): string {
  const infix = infixOf(operator, args);
  if (infix === null) return `${operator.join(".")}(${args.map((a) => printTerm(a)).join(", ")})`;
  let text: string;
  if (infix.op === "in") {
    // Operands of `in` sit at the next level; a key-value `in` always needs parens when nested.
    const ops = args.map((a) => printTerm(a, IN_PREC + 1));
    text = args.length === 3 ? `${ops[0]}, ${ops[1]} in ${ops[2]}` : `${ops[0]} in ${ops[1]}`;
    const nestedKeyValue = args.length === 3 && context > 0;
    return context > IN_PREC || nestedKeyValue ? `(${text})` : text;
  }
  text = `${printTerm(args[0]!, infix.prec)} ${infix.op} ${printTerm(args[1]!, infix.prec + 1)}`;
  return infix.prec < context ? `(${text})` : text;
}

/**
 * `context` is the lowest precedence that may appear here without parentheses:
 * 0 at expression level, higher inside operands.
 */
export function printTerm(t: Term, context = IN_PREC + 1): string {
  switch (t.type) {
    case "null":
      return "null";
    case "boolean":
      return String(t.value);
    case "number":
      // A negative literal as a left operand of a tighter operator keeps its sign binding.
      return t.text;
    case "string":
      return printString(t.value, t.raw === true);
    case "var":
      return t.name;
    case "ref":
      return printRef(t.head, t.path);
    case "array":
      return `[${t.items.map((i) => printTerm(i)).join(", ")}]`;
    case "set":
      return t.items.length === 0 ? "set()" : `{${t.items.map((i) => printTerm(i)).join(", ")}}`;
    case "object":
      return `{${t.items.map(([k, v]) => `${printTerm(k)}: ${printTerm(v)}`).join(", ")}}`;
    case "call":
      return printCall(t.operator, t.args, context);
    case "arraycomprehension":
      return `[${printTerm(t.term)} | ${printInlineBody(t.body)}]`;
    case "setcomprehension":
      return `{${printTerm(t.term)} | ${printInlineBody(t.body)}}`;
    case "objectcomprehension":
      return `{${printTerm(t.key)}: ${printTerm(t.value)} | ${printInlineBody(t.body)}}`;
  }
}

export function printString(value: string, raw: boolean): string {
  return raw && !value.includes("`") ? `\`${value}\`` : JSON.stringify(value);
}

/** `head.name[expr]`: a string path element that is an identifier prints with a dot. */
export function printRef(head: Term, path: readonly Term[]): string {
  let out = head.type === "var" ? head.name : printTerm(head, ATOM);
  for (const p of path) {
    if (p.type === "string" && IDENT.test(p.value) && !KEYWORDS.has(p.value)) out += `.${p.value}`;
    else out += `[${printTerm(p)}]`;
  }
  return out;
}

/** A body inside a term (comprehension, nested every) prints on one line, `;`-separated. */
export function printInlineBody(body: Body): string {
  return body.map((e) => printExpr(e, (b) => `{${printInlineBody(b)}}`)).join("; ");
}

/** One expression; `block` prints the body of an `every`. */
export function printExpr(e: Expr, block: (b: Body) => string): string {
  let core = "";
  switch (e.type) {
    case "termexpr":
      core = printTerm(e.term, 0);
      break;
    case "callexpr":
      if (e.args.length === 2 && (e.operator[0] === "eq" || e.operator[0] === "assign") && e.operator.length === 1) {
        const op = e.operator[0] === "eq" ? "=" : ":=";
        core = `${printTerm(e.args[0]!, 0)} ${op} ${printTerm(e.args[1]!, 0)}`;
      } else core = printCall(e.operator, e.args, 0);
      break;
    case "some":
      core = `some ${e.vars.map((v) => v.name).join(", ")}`;
      break;
    case "somein":
      core = `some ${e.key === null ? "" : `${printTerm(e.key)}, `}${printTerm(e.value)} in ${printTerm(e.domain, IN_PREC + 1)}`;
      break;
    case "every": {
      const vars = `${e.key === null ? "" : `${printTerm(e.key)}, `}${printTerm(e.value)}`;
      core = `every ${vars} in ${printTerm(e.domain, IN_PREC + 1)} ${block(e.body)}`;
      break;
    }
  }
  const neg = e.negated ? "not " : "";
  const withs = e.with.map((w) => ` with ${printTerm(w.target)} as ${printTerm(w.value)}`).join("");
  return `${neg}${core}${withs}`;
}
