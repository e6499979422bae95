/**
 * Recursion check: a rule (or function) may not depend on itself, directly or
 * through other rules. Dependencies are `data.` refs and function calls in
 * bodies, heads and else clauses; a ref to a prefix (`data.a`) depends on every
 * rule below it. Reports `rego_recursion_error` naming the cycle.
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Body, Expr, Term } from "./ast.js";
import type { CompiledRule, RuleGroup } from "./program.js";

interface Trie {
  group: number | null;
  children: Map<string, Trie>;
}

function buildTrie(groups: readonly RuleGroup[]): Trie {
  const root: Trie = { group: null, children: new Map() };
  groups.forEach((g, i) => {
    let n = root;
    for (const seg of g.path) {
      let c = n.children.get(seg);
      if (c === undefined) {
        c = { group: null, children: new Map() };
        n.children.set(seg, c);
      }
      n = c;
    }
    n.group = i;
  });
  return root;
}

/**
 * Groups a ref may read. `segs` are the ref's segments after `data`: a string is
 * matched exactly, null (a variable or any other non-string term) matches every
 * child, so `data.a[h].r` reads only rules named `r` one level below `data.a`.
 * A rule met before the ref ends is read (the ref looks into its value); when the
 * ref ends, everything below is read.
 */
function lookup(trie: Trie, segs: readonly (string | null)[], out: Set<number>): void {
  const walk = (n: Trie, i: number): void => {
    if (n.group !== null) out.add(n.group);
    if (i === segs.length) {
      for (const c of n.children.values()) walk(c, i);
      return;
    }
    const seg = segs[i];
    if (seg === null || seg === undefined) for (const c of n.children.values()) walk(c, i + 1);
    else {
      const c = n.children.get(seg);
      if (c !== undefined) walk(c, i + 1);
    }
  };
  const data = trie.children.get("data");
  if (data !== undefined) walk(data, 0);
}

/**
 * A ref's segments for `lookup`: strings as themselves, variables and other non-ground
 * terms as null (any child). A number, boolean or null never names a rule (rules are
 * named by strings), so `data[1]` reads no rule; it gets a segment no child has.
 */
function refSegments(t: Term & { type: "ref" }): (string | null)[] | null {
  if (t.head.type !== "var" || t.head.name !== "data") return null;
  return t.path.map((p) => (p.type === "string" ? p.value : p.type === "number" || p.type === "boolean" || p.type === "null" ? NO_RULE : null));
}

/** A segment no rule tree child is named (path keys are strings, and none starts with a NUL). */
const NO_RULE = "\u0000";

/** Collects the groups a rule reads (methods, not closures: this runs for every rule). */
class Deps {
  constructor(private readonly trie: Trie, private readonly out: Set<number>) {}

  rule(r: CompiledRule): void {
    this.body(r.body);
    for (const t of r.refTail) this.term(t);
    if (r.value !== null) this.term(r.value);
    if (r.key !== null) this.term(r.key);
    for (let e = r.else; e !== null; e = e.else) {
      this.term(e.value);
      this.body(e.body);
    }
  }

  private body(b: Body): void {
    for (const e of b) this.expr(e);
  }

  private term(t: Term): void {
    switch (t.type) {
      case "ref": {
        const p = refSegments(t);
        if (p !== null) lookup(this.trie, p, this.out);
        this.term(t.head);
        for (const x of t.path) this.term(x);
        return;
      }
      case "array":
      case "set":
        for (const x of t.items) this.term(x);
        return;
      case "object":
        for (const [k, v] of t.items) {
          this.term(k);
          this.term(v);
        }
        return;
      case "call":
        if (t.operator[0] === "data") lookup(this.trie, t.operator.slice(1), this.out);
        for (const x of t.args) this.term(x);
        return;
      case "arraycomprehension":
      case "setcomprehension":
        this.term(t.term);
        this.body(t.body);
        return;
      case "objectcomprehension":
        this.term(t.key);
        this.term(t.value);
        this.body(t.body);
        return;
      default:
        return;
    }
  }

  private expr(e: Expr): void {
    // `with` targets are replaced, not read.
    for (const w of e.with) this.term(w.value);
    switch (e.type) {
      case "termexpr":
        this.term(e.term);
        return;
      case "callexpr":
        if (e.operator[0] === "data") lookup(this.trie, e.operator.slice(1), this.out);
        for (const x of e.args) this.term(x);
        return;
      case "somein":
        this.term(e.domain);
        return;
      case "every":
        this.term(e.domain);
        this.body(e.body);
        return;
      case "not":
        this.body(e.body);
        return;
      default:
        return;
    }
  }
}

export function checkRecursion(groups: readonly RuleGroup[], errors: Diagnostic[]): void {
  const trie = buildTrie(groups);
  const edges: Set<number>[] = groups.map((g) => {
    const out = new Set<number>();
    const deps = new Deps(trie, out);
    for (const r of g.rules) deps.rule(r);
    if (g.default !== null) deps.rule(g.default);
    return out;
  });
  // Tarjan's strongly connected components.
  const index = new Array<number>(groups.length).fill(-1);
  const low = new Array<number>(groups.length).fill(0);
  const onStack = new Array<boolean>(groups.length).fill(false);
  const stack: number[] = [];
  let counter = 0;
  const sccs: number[][] = [];
  const strong = (v0: number): void => {
    // Iterative to survive long dependency chains.
    const work: [number, number[]][] = [[v0, [...(edges[v0] as Set<number>)]]];
    index[v0] = low[v0] = counter++;
    stack.push(v0);
    onStack[v0] = true;
    while (work.length > 0) {
      const top = work[work.length - 1] as [number, number[]];
      const [v, todo] = top;
      const w = todo.pop();
      if (w !== undefined) {
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = true;
          work.push([w, [...(edges[w] as Set<number>)]]);
        } else if (onStack[w]) low[v] = Math.min(low[v] as number, index[w] as number);
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = (work[work.length - 1] as [number, number[]])[0];
        low[parent] = Math.min(low[parent] as number, low[v] as number);
      }
      if (low[v] === index[v]) {
        const scc: number[] = [];
        let x: number;
        do {
          x = stack.pop() as number;
          onStack[x] = false;
          scc.push(x);
        } while (x !== v);
        sccs.push(scc);
      }
    }
  };
  for (let i = 0; i < groups.length; i++) if (index[i] === -1) strong(i);
  for (const scc of sccs) {
    const members = new Set(scc);
    if (scc.length === 1 && !(edges[scc[0] as number] as Set<number>).has(scc[0] as number)) continue;
    for (const g of scc.sort((a, b) => a - b)) {
      const cycle = findCycle(g, edges, members).map((i) => (groups[i] as RuleGroup).path.join("."));
      const group = groups[g] as RuleGroup;
      const first = group.rules[0] ?? group.default;
      if (first === undefined || first === null) continue;
      const what = group.kind === "function" ? "function" : "rule";
      errors.push({ code: "rego_recursion_error", message: `${what} ${group.path.join(".")} is recursive: ${cycle.join(" -> ")}`, location: first.location });
    }
  }
}

/** Shortest path from g back to g inside its component (BFS). */
function findCycle(g: number, edges: readonly Set<number>[], members: ReadonlySet<number>): number[] {
  const prev = new Map<number, number>();
  const queue = [...(edges[g] as Set<number>)].filter((x) => members.has(x));
  for (const q of queue) prev.set(q, g);
  while (queue.length > 0) {
    const x = queue.shift() as number;
    if (x === g) break;
    for (const y of edges[x] as Set<number>) if (members.has(y) && !prev.has(y)) {
      prev.set(y, x);
      queue.push(y);
    }
  }
  const path = [g];
  let cur = prev.get(g);
  while (cur !== undefined && cur !== g && path.length <= members.size) {
    path.push(cur);
    cur = prev.get(cur);
  }
  path.push(g);
  return path.reverse();
}
