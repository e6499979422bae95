/**
 * Binding analysis for the safety stage: which variables a ref iteration or a
 * unification `a = b` can bind, given the variables bound before it.
 */
import type { Term } from "./ast.js";

type Bound = ReadonlySet<string>;

/** Vars of a term at this level, as the safety checker sees them (locals only). */
export interface TermVars {
  termVars(t: Term): Set<string>;
}

/** Vars in ref operand positions, bindable by iterating the ref, when its head is bound. */
export function refOutputs(t: Term, bound: Bound, out: Set<string>): void {
  switch (t.type) {
    case "ref": {
      refOutputs(t.head, bound, out);
      const headOk = t.head.type !== "var" || bound.has(t.head.name) || t.head.name === "data" || t.head.name === "input";
      for (const p of t.path) {
        if (p.type === "var" || p.type === "array" || p.type === "object") {
          // Operands are patterns: `data.s[[x, y]]` binds x and y.
          if (headOk) for (const v of patternVars(p)) out.add(v);
        } else refOutputs(p, bound, out);
      }
      return;
    }
    case "array":
    case "set":
      t.items.forEach((i) => refOutputs(i, bound, out));
      return;
    case "object":
      for (const [k, v] of t.items) {
        refOutputs(k, bound, out);
        refOutputs(v, bound, out);
      }
      return;
    default:
      return;
  }
}

/** Unification `a = b`: which vars it binds, to a fixpoint. */
export function unify(a: Term, b: Term, bound: Bound, out: Set<string>, sc: TermVars): void {
  refOutputs(a, bound, out);
  refOutputs(b, bound, out);
  const isBound = (v: string): boolean => bound.has(v) || out.has(v);
  const allBound = (t: Term): boolean => [...sc.termVars(t)].every(isBound);
  let changed = true;
  const step = (x: Term, y: Term): void => {
    if (x.type === "var" && !isBound(x.name) && allBound(y)) {
      out.add(x.name);
      changed = true;
      return;
    }
    if (y.type === "var" && !isBound(y.name) && allBound(x)) {
      out.add(y.name);
      changed = true;
      return;
    }
    if (x.type === "array" && y.type === "array" && x.items.length === y.items.length) {
      x.items.forEach((xi, i) => step(xi, y.items[i] as Term));
      return;
    }
    if (x.type === "object" && y.type === "object" && x.items.length === y.items.length) {
      let unpaired = false;
      for (const [k, v] of x.items) {
        const match = y.items.find(([k2]) => sameGround(k, k2));
        if (match !== undefined) step(v, match[1]);
        else unpaired = true;
      }
      // Keys known only at run time (`{k: v} = {"a": 1}`): a fully bound side binds the other's values.
      if (unpaired && allBound(y)) bindAll(x);
      if (unpaired && allBound(x)) bindAll(y);
      return;
    }
    // A composite pattern against a bound value binds all of its vars.
    if ((x.type === "array" || x.type === "object") && y.type !== "array" && y.type !== "object" && allBound(y)) bindAll(x);
    if ((y.type === "array" || y.type === "object") && x.type !== "array" && x.type !== "object" && allBound(x)) bindAll(y);
  };
  const bindAll = (t: Term): void => {
    for (const v of patternVars(t)) if (!isBound(v)) {
      out.add(v);
      changed = true;
    }
  };
  while (changed) {
    changed = false;
    step(a, b);
  }
}

/** Vars of a unification pattern (not ref heads, which must be bound already). */
function patternVars(t: Term): string[] {
  switch (t.type) {
    case "var":
      return [t.name];
    case "array":
      return t.items.flatMap(patternVars);
    case "object":
      return t.items.flatMap(([, v]) => patternVars(v));
    default:
      return [];
  }
}

/** Two object keys known equal at compile time: scalars with the same value. */
function sameGround(a: Term, b: Term): boolean {
  switch (a.type) {
    case "string":
      return b.type === "string" && a.value === b.value;
    case "number":
      return b.type === "number" && a.text === b.text;
    case "boolean":
      return b.type === "boolean" && a.value === b.value;
    case "null":
      return b.type === "null";
    case "var":
      return b.type === "var" && a.name === b.name;
    default:
      return false;
  }
}
