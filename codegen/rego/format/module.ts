/** Prints a parsed module in canonical `opa fmt` style (Rego v1: `if`, `contains`, `:=`, tabs). */
import type { Body, ElseClause, Expr, Import, Module, Rule, RuleHead, Term } from "../ast.js";
import { Printer } from "./printer.js";
import { opensBlock, printExpr, printInlineBody, printRef, printTerm } from "./terms.js";

export function printModule(m: Module): string {
  const p = new Printer(m.comments);
  p.line(0, `package ${printPath(m.package.path.slice(1))}`, m.package.location.row);
  if (m.imports.length > 0) {
    p.blank();
    for (const imp of m.imports) p.line(0, printImport(imp), imp.location.row);
  }
  for (const rule of m.rules) {
    p.blank();
    p.flushBefore(rule.location.row, 0);
    printRule(p, rule);
  }
  return p.finish();
}

function printPath(segments: readonly string[]): string {
  const [first, ...rest] = segments;
  if (first === undefined) return "";
  return printRef({ type: "var", name: first, location: loc0 }, rest.map((s) => ({ type: "string", value: s, location: loc0 })));
}
const loc0 = { file: "", row: 0, col: 0 };

function printImport(imp: Import): string {
  const alias = imp.alias === null ? "" : ` as ${imp.alias}`;
  // `future.keywords.not`: keyword names are import path segments, not ref keys.
  const path = imp.path[0] === "future" ? imp.path.join(".") : printPath(imp.path);
  return `import ${path}${alias}`;
}

/** A body the parser synthesised for a rule without one (`p := 1`). */
function isAbsentBody(body: Body): boolean {
  const e = body[0];
  return (
    body.length === 1 && e !== undefined && e.type === "termexpr" && !e.negated && e.with.length === 0 &&
    e.term.type === "boolean" && e.term.value
  );
}

function printRule(p: Printer, r: Rule): void {
  const head = printHead(r.head);
  const row = r.location.row;
  if (r.default) {
    p.line(0, `default ${head}`, row);
    return;
  }
  const only = r.body[0];
  const sameRow = only !== undefined && only.location.row === row;
  if (r.else === null && r.body.length === 1 && sameRow && !opensBlock(only) && !isAbsentBody(r.body)) {
    // A one-expression body written on the head's line stays there when it fits.
    const text = `${head} if ${printExpr(only, () => "", 0)}`;
    // `if {` would open a block: a body that starts with a brace keeps the block form.
    if (!text.includes("\n") && text.length <= oneLineMax && !text.startsWith(`${head} if {`)) {
      p.line(0, text, row);
      return;
    }
  }
  printBodyAfter(p, head, r.body, row, 0, false);
  for (let e: ElseClause | null = r.else; e !== null; e = e.else) {
    const value = isTrue(e.value) ? "else" : `else := ${printTerm(e.value)}`;
    printBodyAfter(p, value, e.body, e.location.row, 0, true);
  }
}

/** Longest `head if expr` kept on one line. */
const oneLineMax = 100;

/**
 * `lead if { ... }`, or just `lead` when the body was absent. An `else` joins the
 * previous closing line: `} else := 0`.
 */
function printBodyAfter(p: Printer, lead: string, body: Body, row: number, depth: number, joinPrevious: boolean): void {
  const open = isAbsentBody(body) ? lead : `${lead} if {`;
  if (joinPrevious) p.appendToLast(` ${open}`, row);
  else p.line(depth, open, row);
  if (isAbsentBody(body)) return;
  printBlockLines(p, body, depth + 1);
  p.line(depth, "}");
}

function printBlockLines(p: Printer, body: Body, depth: number): void {
  for (const e of body) printExprLines(p, e, depth);
}

/** An expression on its own line(s); `every`, `not { }` and braced `and`/`or` operands open nested blocks. */
function printExprLines(p: Printer, e: Expr, depth: number): void {
  if (!opensBlock(e)) {
    p.line(depth, printExpr(e, (b) => `{${printInlineBody(b, depth)}}`, depth), e.location.row);
    return;
  }
  const bodies: Body[] = [];
  const text = printExpr(e, (b) => `\u0000${bodies.push(b) - 1}\u0000`, depth);
  const between = text.split(/\u0000\d+\u0000/);
  p.line(depth, `${between[0]}{`, e.location.row);
  bodies.forEach((b, i) => {
    printBlockLines(p, b, depth + 1);
    p.line(depth, i + 1 < bodies.length ? `}${between[i + 1]}{` : `}${between[i + 1]}`);
  });
}

function printHead(h: RuleHead): string {
  const [first, ...rest] = h.ref;
  if (first === undefined) throw new Error("rule head without a name");
  const name = printRef(first, rest);
  switch (h.kind) {
    case "contains":
      return `${name} contains ${printTerm(h.key)}`;
    case "function": {
      const call = `${name}(${h.args.map((a) => printTerm(a)).join(", ")})`;
      return isTrue(h.value) && !h.assign ? call : `${call} ${h.assign ? ":=" : "="} ${printTerm(h.value)}`;
    }
    case "value":
      return isTrue(h.value) && !h.assign ? name : `${name} ${h.assign ? ":=" : "="} ${printTerm(h.value)}`;
  }
}

// `=` and `:=` in a head are kept as written: `:=` also forbids redefinition, so
// rewriting one into the other could change whether a module compiles.
const isTrue = (t: Term): boolean => t.type === "boolean" && t.value;
