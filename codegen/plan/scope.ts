/** Variable bindings and block nesting, both undone when a continuation returns. */
import type { Term } from "../rego/ast.js";
import type { Ctx } from "./context.js";
import type { Block, Local, Location, Operand } from "./ir.js";
import { local } from "./ir.js";

/** Marks a variable declared (`some x`, `x :=`) but not bound yet. */
export const UNBOUND: Local = -1;

/** `_` only survives in hand-built bodies: the front end renames every wildcard to a fresh local. */
export function isWildcard(name: string): boolean {
  return name === "_";
}

export function isBound(c: Ctx, name: string): boolean {
  const l = c.vars.get(name);
  return l !== undefined && l !== UNBOUND;
}

/** Runs `k` with `name` set to `value` (a local, or UNBOUND to shadow), then restores. */
export function withVar(c: Ctx, name: string, value: Local, k: () => void): void {
  if (isWildcard(name)) return k();
  const had = c.vars.has(name);
  const prev = c.vars.get(name);
  c.vars.set(name, value);
  try {
    k();
  } finally {
    if (had) c.vars.set(name, prev!);
    else c.vars.delete(name);
  }
}

/** Variables of a pattern term (vars inside arrays, sets and objects; not refs). */
export function termVars(t: Term | null): string[] {
  if (t === null) return [];
  if (t.type === "var") return [t.name];
  if (t.type === "array" || t.type === "set") return t.items.flatMap(termVars);
  if (t.type === "object") return t.items.flatMap(([a, b]) => [...termVars(a), ...termVars(b)]);
  return [];
}

/** Declares each name fresh (unbound) for the duration of `k`. */
export function declare(c: Ctx, names: readonly string[], k: () => void): void {
  if (names.length === 0) return k();
  withVar(c, names[0]!, UNBOUND, () => declare(c, names.slice(1), k));
}

/** Binds `name` to an operand, copying constants into a local. */
export function bindOperand(c: Ctx, name: string, o: Operand, k: () => void): void {
  if (isWildcard(name)) return k();
  if (o.kind === "local") return withVar(c, name, o.local, k);
  const l = c.w.newLocal();
  c.w.emit({ type: "AssignVarStmt", source: o, target: l });
  withVar(c, name, l, k);
}

/** A new block filled by `fill`, counted in the break depth. */
export function nested(c: Ctx, fill: () => void): Block {
  c.depth++;
  try {
    return c.w.block(fill);
  } finally {
    c.depth--;
  }
}

/** `nested` for the body of a loop statement (a scan). */
export function loopBody(c: Ctx, fill: () => void): Block {
  return c.w.loopBody(() => nested(c, fill));
}

/**
 * `source[key]` into a local: inside a loop, a lookup in the input or data document
 * made once per call (see BlockWriter.invariantDot), else a DotStmt here.
 */
export function dot(c: Ctx, source: Operand, key: Operand): Local {
  const invariant = c.w.invariantDot(source, key);
  if (invariant !== null) return invariant;
  const target = c.w.newLocal();
  c.w.emit({ type: "DotStmt", source, key, target });
  return target;
}

/** The operand as a local (ScanStmt, ReturnLocalStmt and friends need one). */
export function asLocal(c: Ctx, o: Operand): Local {
  if (o.kind === "local") return o.local;
  const l = c.w.newLocal();
  c.w.emit({ type: "AssignVarStmt", source: o, target: l });
  return l;
}

export { local };

/** Variables in `t` not bound in `c` (wildcards included), outside comprehension bodies. */
export function unboundVars(c: Ctx, t: Term, out: string[] = []): string[] {
  switch (t.type) {
    case "var":
      if (!isBound(c, t.name) && !isGlobalName(c, t.name)) out.push(t.name);
      break;
    case "ref":
      // Only the head var decides whether the ref itself is a pattern; path vars are bound by scans.
      if (t.head.type !== "var") unboundVars(c, t.head, out);
      break;
    case "array":
    case "set":
      for (const i of t.items) unboundVars(c, i, out);
      break;
    case "object":
      for (const [k, v] of t.items) {
        unboundVars(c, k, out);
        unboundVars(c, v, out);
      }
      break;
    case "call":
      for (const a of t.args) unboundVars(c, a, out);
      break;
    default:
      break;
  }
  return out;
}

/**
 * The checked program's only global names: `input` and `data` (ref heads); every
 * other var is a local of the rule or query.
 */
export function isGlobalName(c: Ctx, name: string): boolean {
  return (name === "input" || name === "data") && !c.vars.has(name);
}

export function locOf(c: Ctx, l: { file: string; row: number; col: number }): Location {
  return { file: c.s.statics.file(l.file), row: l.row, col: l.col };
}
