/**
 * Which rule groups a piece of Rego reads: a reference walk over terms, used by
 * `explain` to mark the rules a query depends on. Works on parsed query bodies
 * and on compiled rules alike, because it only looks for `data.` refs and calls
 * to `data.` functions wherever they sit in the tree.
 */
import type { RuleGroup } from "../rego/index.js";

/** Ground prefix of a `data.` ref node (`data.a.b[x].c` -> ["data","a","b"]), else null. */
function dataPrefix(node: Record<string, unknown>): string[] | null {
  if (node["type"] !== "ref") return null;
  const head = node["head"] as Record<string, unknown> | undefined;
  if (head?.["type"] !== "var" || head["name"] !== "data") return null;
  const out = ["data"];
  for (const p of node["path"] as readonly Record<string, unknown>[]) {
    if (p["type"] !== "string") break;
    out.push(p["value"] as string);
  }
  return out;
}

/** Every `data.` path (ref prefix or function name) read anywhere inside `root`. */
export function dataReads(root: unknown): string[][] {
  const out: string[][] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x === null || typeof x !== "object") continue;
    if (Array.isArray(x)) {
      stack.push(...(x as unknown[]));
      continue;
    }
    const node = x as Record<string, unknown>;
    const prefix = dataPrefix(node);
    if (prefix !== null) out.push(prefix);
    const op = node["operator"];
    if ((node["type"] === "call" || node["type"] === "callexpr") && Array.isArray(op) && op[0] === "data") out.push(op as string[]);
    for (const [k, v] of Object.entries(node)) if (k !== "location") stack.push(v);
  }
  return out;
}

const isPrefix = (a: readonly string[], b: readonly string[]): boolean => a.length <= b.length && a.every((s, i) => b[i] === s);

/** Indexes of the groups a read of `path` may touch: the rule at or above it, or every rule below it. */
export function groupsRead(groups: readonly RuleGroup[], path: readonly string[]): number[] {
  const out: number[] = [];
  groups.forEach((g, i) => {
    if (isPrefix(g.path, path) || isPrefix(path, g.path)) out.push(i);
  });
  return out;
}

/** Direct dependencies of each group (indexes into `groups`). */
export function groupEdges(groups: readonly RuleGroup[]): Set<number>[] {
  return groups.map((g) => {
    const out = new Set<number>();
    const rules = g.default === null ? g.rules : [...g.rules, g.default];
    for (const r of rules) {
      // The body, head terms and else chain; location and name maps hold no refs.
      for (const p of dataReads([r.body, r.value, r.key, r.refTail, r.else])) for (const j of groupsRead(groups, p)) out.add(j);
    }
    return out;
  });
}

/** Groups reachable from `roots` through `edges` (roots excluded unless reached again). */
export function reachable(roots: Iterable<number>, edges: readonly Set<number>[]): Set<number> {
  const seen = new Set<number>();
  const stack = [...roots].flatMap((r) => [...(edges[r] ?? [])]);
  while (stack.length > 0) {
    const x = stack.pop() as number;
    if (seen.has(x)) continue;
    seen.add(x);
    stack.push(...(edges[x] ?? []));
  }
  return seen;
}
