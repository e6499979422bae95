/**
 * Debug dump of terms, bodies and compiled programs in a Rego-like syntax.
 * Not a formatter: it shows the compiler's view (internal operator names,
 * generated locals, `binds`, `captures`), one expression per line.
 */
import type { Body, ElseClause, Expr, Term, WithModifier } from "./ast.js";
import type { CompiledQuery, CompiledRule, Program, RuleGroup } from "./program.js";

export function prettyTerm(t: Term): string {
  switch (t.type) {
    case "null":
      return "null";
    case "boolean":
      return String(t.value);
    case "number":
      return t.text;
    case "string":
      return JSON.stringify(t.value);
    case "var":
      return t.name;
    case "ref":
      return prettyTerm(t.head) + t.path.map((p) => (p.type === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(p.value) ? `.${p.value}` : `[${prettyTerm(p)}]`)).join("");
    case "array":
      return `[${t.items.map(prettyTerm).join(", ")}]`;
    case "set":
      return t.items.length === 0 ? "set()" : `{${t.items.map(prettyTerm).join(", ")}}`;
    case "object":
      return `{${t.items.map(([k, v]) => `${prettyTerm(k)}: ${prettyTerm(v)}`).join(", ")}}`;
    case "call":
      return `${t.operator.join(".")}(${t.args.map(prettyTerm).join(", ")})`;
    case "arraycomprehension":
      return `[${prettyTerm(t.term)} | ${inline(t.body)}]${caps(t.captures)}`;
    case "setcomprehension":
      return `{${prettyTerm(t.term)} | ${inline(t.body)}}${caps(t.captures)}`;
    case "objectcomprehension":
      return `{${prettyTerm(t.key)}: ${prettyTerm(t.value)} | ${inline(t.body)}}${caps(t.captures)}`;
  }
}

function caps(c: readonly string[] | undefined): string {
  return c === undefined || c.length === 0 ? "" : ` /*captures ${c.join(",")}*/`;
}

function inline(b: Body): string {
  return b.map((e) => prettyExpr(e, "")).join("; ");
}

function withs(ws: readonly WithModifier[]): string {
  return ws.map((w) => ` with ${prettyTerm(w.target)} as ${prettyTerm(w.value)}`).join("");
}

export function prettyExpr(e: Expr, indent: string): string {
  const not = e.negated ? "not " : "";
  const binds = e.binds !== undefined && e.binds.length > 0 ? `  # binds ${e.binds.join(", ")}` : "";
  let core: string;
  switch (e.type) {
    case "termexpr":
      core = prettyTerm(e.term);
      break;
    case "callexpr":
      core = `${e.operator.join(".")}(${e.args.map(prettyTerm).join(", ")})`;
      break;
    case "some":
      core = `some ${e.vars.map((v) => v.name).join(", ")}`;
      break;
    case "somein":
      core = `some ${e.key === null ? "" : `${prettyTerm(e.key)}, `}${prettyTerm(e.value)} in ${prettyTerm(e.domain)}`;
      break;
    case "every":
      core = `every ${e.key === null ? "" : `${prettyTerm(e.key)}, `}${prettyTerm(e.value)} in ${prettyTerm(e.domain)} {${caps(e.captures)}\n${prettyBody(e.body, indent + "  ")}\n${indent}}`;
      break;
    case "not":
      core = `not {${caps(e.captures)}\n${prettyBody(e.body, indent + "  ")}\n${indent}}`;
      break;
  }
  return `${not}${core}${withs(e.with)}${binds}`;
}

export function prettyBody(b: Body, indent = "  "): string {
  return b.map((e) => indent + prettyExpr(e, indent)).join("\n");
}

function prettyRule(g: RuleGroup, r: CompiledRule): string {
  const head = g.path.join(".") + r.refTail.map((t) => `[${prettyTerm(t)}]`).join("");
  const args = g.kind === "function" ? `(${r.args.map(prettyTerm).join(", ")})` : "";
  const value = r.key !== null ? ` contains ${prettyTerm(r.key)}` : r.value !== null ? ` := ${prettyTerm(r.value)}` : "";
  let s = `${r.default ? "default " : ""}${head}${args}${value} if {\n${prettyBody(r.body)}\n}`;
  for (let e: ElseClause | null = r.else; e !== null; e = e.else) s += ` else := ${prettyTerm(e.value)} if {\n${prettyBody(e.body)}\n}`;
  return s;
}

export function prettyGroup(g: RuleGroup): string {
  const lines = [`# ${g.path.join(".")} (${g.kind}${g.kind === "function" ? `/${g.arity}` : ""})`];
  if (g.default !== null) lines.push(prettyRule(g, g.default));
  for (const r of g.rules) lines.push(prettyRule(g, r));
  return lines.join("\n");
}

export function prettyProgram(p: Program): string {
  return p.groups.map(prettyGroup).join("\n\n") + "\n";
}

export function prettyQuery(q: CompiledQuery): string {
  return `# vars: ${q.vars.join(", ")}\n${prettyBody(q.body, "")}\n`;
}
