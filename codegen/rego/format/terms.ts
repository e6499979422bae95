/**
 * Prints terms in canonical Rego. The AST keeps no parentheses, so they are put
 * back from operator precedence (OPA's, loosest first): `in` < comparisons < `|`
 * < `&` < `+ -` < `* / %`, all left-associative.
 */
import type { Body, Expr, ExprSource, TemplateSource, Term } from "../ast.js";

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
const UNION_PREC = 3;
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
export function printCall(operator: readonly string[], args: readonly Term[], context: number, depth = 0): string {
  const infix = infixOf(operator, args);
  if (infix === null) return `${operator.join(".")}(${args.map((a) => printTerm(a, IN_PREC + 1, depth)).join(", ")})`;
  let text: string;
  if (infix.op === "in") {
    // Operands of `in` sit at the next level; a key-value `in` always needs parens when nested.
    const ops = args.map((a) => printTerm(a, IN_PREC + 1, depth));
    text = args.length === 3 ? `${ops[0]}, ${ops[1]} in ${ops[2]}` : `${ops[0]} in ${ops[1]}`;
    const nestedKeyValue = args.length === 3 && context > 0;
    return context > IN_PREC || nestedKeyValue ? `(${text})` : text;
  }
  text = `${printTerm(args[0]!, infix.prec, depth)} ${infix.op} ${printTerm(args[1]!, infix.prec + 1, depth)}`;
  return infix.prec < context ? `(${text})` : text;
}

/**
 * `context` is the lowest precedence that may appear here without parentheses:
 * 0 at expression level, higher inside operands.
 */
export function printTerm(t: Term, context = IN_PREC + 1, depth = 0): string {
  const sub = (x: Term) => (d: number): string => printTerm(x, IN_PREC + 1, d);
  // A `|` right after the first item would read as a comprehension: `[(a | b)]`, `{"k": (a | b)}`.
  const first = (x: Term) => (d: number): string => printTerm(x, UNION_PREC + 1, d);
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
      return printRef(t.head, t.path, depth);
    case "array":
      return collection("[", "]", t.items.map((i, n) => [i.location.row, n === 0 ? first(i) : sub(i)] as const), t.location.row, depth);
    case "set":
      if (t.items.length === 0) return "set()";
      return collection("{", "}", t.items.map((i, n) => [i.location.row, n === 0 ? first(i) : sub(i)] as const), t.location.row, depth);
    case "object":
      return collection("{", "}", t.items.map(([k, v], n) => [k.location.row, (d: number) => `${(n === 0 ? first(k) : sub(k))(d)}: ${(n === 0 ? first(v) : sub(v))(d)}`] as const), t.location.row, depth);
    case "call":
      if (t.template !== undefined) return printTemplate(t.template, depth);
      return printCall(t.operator, t.args, context, depth);
    case "arraycomprehension":
      return `[${printTerm(t.term, IN_PREC + 1, depth)} | ${printInlineBody(t.body, depth)}]`;
    case "setcomprehension":
      return `{${printTerm(t.term, IN_PREC + 1, depth)} | ${printInlineBody(t.body, depth)}}`;
    case "objectcomprehension":
      return `{${printTerm(t.key, IN_PREC + 1, depth)}: ${printTerm(t.value, IN_PREC + 1, depth)} | ${printInlineBody(t.body, depth)}}`;
  }
}

/**
 * A collection whose items started on other rows than its bracket prints one item
 * per line (as `opa fmt` keeps multi-line literals); otherwise on one line.
 */
function collection(
  open: string,
  close: string,
  items: readonly (readonly [number, (depth: number) => string])[],
  row: number,
  depth: number,
): string {
  const multiline = items.some(([r]) => r !== row);
  if (!multiline) return `${open}${items.map(([, print]) => print(depth)).join(", ")}${close}`;
  const pad = "\t".repeat(depth + 1);
  return `${open}\n${items.map(([, print]) => `${pad}${print(depth + 1)},\n`).join("")}${"\t".repeat(depth)}${close}`;
}

/** `$"a{x}b"` / `` $`a{x}b` ``; `{` in the text is escaped as `\{` in both forms. */
function printTemplate(tpl: TemplateSource, depth: number): string {
  let out = tpl.raw ? "$`" : '$"';
  for (const p of tpl.parts) {
    if (typeof p !== "string") out += `{${printTerm(p, 0, depth)}}`;
    else out += (tpl.raw ? p : JSON.stringify(p).slice(1, -1)).replaceAll("{", "\\{");
  }
  return out + (tpl.raw ? "`" : '"');
}

export function printString(value: string, raw: boolean): string {
  return raw && !value.includes("`") ? `\`${value}\`` : JSON.stringify(value);
}

/** `head.name[expr]`: a string path element that is an identifier prints with a dot. */
export function printRef(head: Term, path: readonly Term[], depth = 0): string {
  let out = head.type === "var" ? head.name : printTerm(head, ATOM, depth);
  for (const p of path) {
    if (p.type === "string" && IDENT.test(p.value) && !KEYWORDS.has(p.value)) out += `.${p.value}`;
    else out += `[${printTerm(p, IN_PREC + 1, depth)}]`;
  }
  return out;
}

/** A body inside a term (comprehension, nested every) prints on one line, `;`-separated. */
export function printInlineBody(body: Body, depth = 0): string {
  return body.map((e) => printExpr(e, (b) => `{${printInlineBody(b, depth)}}`, depth)).join("; ");
}

/**
 * One expression at `depth` tabs; `block` prints the body of an `every`. A `with`
 * that started on its own row in the source stays on its own line, one tab deeper.
 */
export function printExpr(e: Expr, block: (b: Body) => string, depth = 0): string {
  const term = (t: Term, context = IN_PREC + 1): string => printTerm(t, context, depth);
  let core = "";
  if (e.source !== undefined) return `${printSource(e.source, block, depth)}${printWiths(e, depth)}`;
  switch (e.type) {
    case "termexpr":
      core = term(e.term, 0);
      break;
    case "callexpr":
      if (e.args.length === 2 && (e.operator[0] === "eq" || e.operator[0] === "assign") && e.operator.length === 1) {
        const op = e.operator[0] === "eq" ? "=" : ":=";
        core = `${term(e.args[0]!, 0)} ${op} ${term(e.args[1]!, 0)}`;
      } else core = printCall(e.operator, e.args, 0, depth);
      break;
    case "some":
      core = `some ${e.vars.map((v) => v.name).join(", ")}`;
      break;
    case "somein":
      core = `some ${e.key === null ? "" : `${term(e.key)}, `}${term(e.value)} in ${term(e.domain, IN_PREC + 1)}`;
      break;
    case "every": {
      const vars = `${e.key === null ? "" : `${term(e.key)}, `}${term(e.value)}`;
      core = `every ${vars} in ${term(e.domain, IN_PREC + 1)} ${block(e.body)}`;
      break;
    }
  }
  const neg = e.negated ? "not " : "";
  return `${neg}${core}${printWiths(e, depth)}`;
}

function printWiths(e: Expr, depth: number): string {
  const blockLike = e.type === "every" || e.source !== undefined;
  return e.with
    .map((w) => {
      // After an `every` block the `with` follows its closing brace.
      const ownLine = w.location.row > e.location.row && !blockLike;
      const sep = ownLine ? `\n${"\t".repeat(depth + 1)}` : " ";
      return `${sep}with ${printTerm(w.target, IN_PREC + 1, depth)} as ${printTerm(w.value, IN_PREC + 1, ownLine ? depth + 1 : depth)}`;
    })
    .join("");
}

/** `not { ... }` and `a and b` / `a or b` as written; `block` prints each braced body. */
function printSource(source: ExprSource, block: (b: Body) => string, depth: number): string {
  if (source.kind === "notblock") {
    const only = source.body[0];
    if (source.paren === true && only !== undefined) return `not ${printExpr(only, block, depth)}`;
    return `not ${block(source.body)}`;
  }
  const text = source.operands.map((o) => ("block" in o ? block(o.block) : printExpr(o.expr, block, depth))).join(` ${source.op} `);
  return source.paren === true ? `(${text})` : text;
}

/** Whether printing `e` opens a braced body (`every`, `not { }`, a braced operand). */
export function opensBlock(e: Expr): boolean {
  if (e.type === "every") return true;
  const s = e.source;
  if (s === undefined) return false;
  if (s.kind === "notblock") return s.paren !== true || s.body.some(opensBlock);
  return s.operands.some((o) => "block" in o || opensBlock(o.expr));
}
