/**
 * Rule indexing (OPA's topdown indexer, for the Wasm target): the rules of one node
 * whose bodies test the same input path against string constants
 * (`input.tool == "x"`, `input.args.kind = "y"`, `input.tool in {"a", "b"}`) are
 * grouped by constant, and the function evaluates only the group of the value the
 * input holds there: one lookup in a constant object gives the value's group number,
 * and a tree over the number's bits (one array lookup per bit) reaches the group's
 * code, O(log n) in the number of constants. Rules planned in a group are planned whole (their test
 * included), so the index only skips rules whose test cannot hold.
 */
import type { Expr, Term } from "../rego/ast.js";
import type { CompiledRule } from "../rego/program.js";
import type { Ctx } from "./context.js";
import type { ConstValue, Local } from "./ir.js";
import { local } from "./ir.js";
import type { RuleEntry } from "./rule-index.js";
import { nested } from "./scope.js";

/** Below this many indexed rules a node is planned as written. */
export const MIN_INDEXED_RULES = 8;

/** An input path (string keys) and the constants a rule requires there. */
interface Condition {
  readonly path: readonly string[];
  readonly values: readonly string[];
}

function inputPath(t: Term): string[] | null {
  if (t.type !== "ref" || t.head.type !== "var" || t.head.name !== "input" || t.path.length === 0) return null;
  const out: string[] = [];
  for (const p of t.path) {
    if (p.type !== "string") return null;
    out.push(p.value);
  }
  return out;
}

function stringsOf(t: Term): string[] | null {
  if (t.type !== "array" && t.type !== "set") return null;
  const out: string[] = [];
  for (const i of t.items) {
    if (i.type !== "string") return null;
    out.push(i.value);
  }
  return out;
}

function conditionOf(e: Expr): Condition | null {
  if (e.type !== "callexpr" || e.with.length > 0) return null;
  const op = e.operator.join(".");
  if ((op === "eq" || op === "equal") && e.args.length === 2) {
    const [a, b] = e.args as [Term, Term];
    for (const [ref, c] of [[a, b], [b, a]] as const) {
      const path = inputPath(ref);
      if (path !== null && c.type === "string") return { path, values: [c.value] };
    }
    return null;
  }
  if (op === "internal.member_2" && e.args.length === 2) {
    const path = inputPath(e.args[0]!);
    const values = stringsOf(e.args[1]!);
    if (path !== null && values !== null) return { path, values };
  }
  return null;
}

/** The conditions a rule's body requires (top-level expressions only); none for rules with `else`. */
function conditions(rule: CompiledRule): Condition[] {
  if (rule.else !== null || rule.default) return [];
  const out: Condition[] = [];
  for (const e of rule.body) {
    const c = conditionOf(e);
    if (c !== null) out.push(c);
  }
  return out;
}

export interface RuleDispatch {
  readonly path: readonly string[];
  /** Distinct constants in order; a constant's position is its group number. */
  readonly constants: readonly string[];
  /** By group number: the entries to plan there, in source order. */
  readonly groups: readonly (readonly RuleEntry[])[];
  /** Entries not indexed: planned as written. */
  readonly rest: readonly RuleEntry[];
}

/** The index of a node's rules, or null when too few rules test one input path. */
export function ruleDispatch(entries: readonly RuleEntry[]): RuleDispatch | null {
  const byRule = entries.map((e) => conditions(e.rule));
  const counts = new Map<string, { path: readonly string[]; n: number }>();
  for (const cs of byRule) {
    const seen = new Set<string>();
    for (const c of cs) {
      const key = JSON.stringify(c.path);
      if (seen.has(key)) continue;
      seen.add(key);
      const cur = counts.get(key) ?? { path: c.path, n: 0 };
      cur.n++;
      counts.set(key, cur);
    }
  }
  let best: { path: readonly string[]; n: number } | null = null;
  for (const c of counts.values()) if (best === null || c.n > best.n) best = c;
  if (best === null || best.n < MIN_INDEXED_RULES) return null;
  const key = JSON.stringify(best.path);
  const ids = new Map<string, number>();
  const groups: RuleEntry[][] = [];
  const rest: RuleEntry[] = [];
  entries.forEach((entry, i) => {
    const c = byRule[i]!.find((x) => JSON.stringify(x.path) === key);
    if (c === undefined || entry.rule.default) {
      if (!entry.rule.default) rest.push(entry);
      return;
    }
    // A rule requiring several constants at once can only match one: any of them is its group.
    for (const v of new Set(c.values)) {
      let id = ids.get(v);
      if (id === undefined) {
        id = groups.length;
        ids.set(v, id);
        groups.push([]);
      }
      groups[id]!.push(entry);
    }
  });
  return { path: best.path, constants: [...ids.keys()], groups, rest };
}

/**
 * Looks up the input path, finds the group of its value and plans that group with
 * `planGroup`. An undefined path or a value that is no constant plans nothing.
 */
export function planDispatch(c: Ctx, d: RuleDispatch, planGroup: (group: number) => void): void {
  const w = c.w;
  let v: Local = c.input;
  for (const key of d.path) {
    const next = w.newLocal();
    w.emit({ type: "DotStmt", source: local(v), key: { kind: "string", index: c.s.statics.string(key) }, target: next });
    v = next;
  }
  w.emit({ type: "IsDefinedStmt", source: v });
  const n = d.constants.length;
  const bits = Math.max(1, Math.ceil(Math.log2(n)));
  // The value's group number: one lookup in an object of the constants (undefined for others).
  const numbers = w.newLocal();
  w.emit({ type: "MakeConstStmt", index: c.s.statics.constant({ type: "object", items: d.constants.map((s, id) => [{ type: "string", value: s }, { type: "number", value: id }] as const) }), target: numbers });
  const id = w.newLocal();
  w.emit({ type: "DotStmt", source: local(numbers), key: local(v), target: id });
  // Bit b of every group number, by group number: array lookups down the tree.
  const bitArrays: Local[] = [];
  for (let b = 0; b < bits; b++) {
    const items: ConstValue[] = d.constants.map((_, i) => ({ type: "boolean", value: ((i >> b) & 1) === 1 }));
    const l = w.newLocal();
    w.emit({ type: "MakeConstStmt", index: c.s.statics.constant({ type: "array", items }), target: l });
    bitArrays.push(l);
  }
  // One local for every bit test: a function's locals are zeroed on each call, so none per tree node.
  const t = w.newLocal();
  const tree = (prefix: number, bit: number): void => {
    if (bit < 0) {
      if (prefix < n) w.emit({ type: "BlockStmt", blocks: [nested(c, () => planGroup(prefix))] });
      return;
    }
    const high = prefix | (1 << bit);
    if (high >= n) return tree(prefix, bit - 1);
    const wrapperDepth = c.depth + 1;
    const wrapper = nested(c, () => {
      const set = nested(c, () => {
        w.emit({ type: "DotStmt", source: local(bitArrays[bit]!), key: local(id), target: t });
        w.emit({ type: "EqualStmt", a: local(t), b: { kind: "bool", value: true } });
        tree(high, bit - 1);
        w.emit({ type: "BreakStmt", index: c.depth - wrapperDepth });
      });
      const clear = nested(c, () => tree(prefix, bit - 1));
      w.emit({ type: "BlockStmt", blocks: [set, clear] });
    });
    w.emit({ type: "BlockStmt", blocks: [wrapper] });
  };
  tree(0, bits - 1);
}
