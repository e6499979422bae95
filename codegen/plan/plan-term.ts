/**
 * Terms to operands, and unification. Everything is continuation-passing: planning a
 * term may open scans (a ref with unbound variables iterates), and the rest of the
 * body is planned inside them by calling `k`.
 */
import type { Term } from "../rego/ast.js";
import type { Ctx } from "./context.js";
import type { Operand } from "./ir.js";
import { groundValue, objectTemplate } from "./ground.js";
import { bool, local, str } from "./ir.js";
import { asLocal, bindOperand, isBound, isGlobalName, locOf, nested, unboundVars } from "./scope.js";

const SAFE = 2 ** 53;

export function planTerm(c: Ctx, t: Term, k: (o: Operand) => void): void {
  c.w.loc = locOf(c, t.location);
  switch (t.type) {
    case "null": {
      const l = c.w.newLocal();
      c.w.emit({ type: "MakeNullStmt", target: l });
      return k(local(l));
    }
    case "boolean":
      return k(bool(t.value));
    case "string":
      return k(str(c.s.statics.string(t.value)));
    case "number":
      return k(local(makeNumber(c, t.text)));
    case "var": {
      const l = c.vars.get(t.name);
      if (l !== undefined && l >= 0) return k(local(l));
      if (isGlobalName(c, t.name)) {
        return c.s.ops.ref(c, { type: "ref", head: t, path: [], location: t.location }, k);
      }
      c.s.errors.push({
        code: "rego_unsafe_var_error",
        message: `var ${t.name} is unsafe`,
        location: t.location,
      });
      return k(bool(false));
    }
    case "ref":
      return c.s.ops.ref(c, t, k);
    case "call":
      // The front end lifts every nested call into its own expression.
      c.s.errors.push({ code: "rego_compile_error", message: `internal compiler error: nested call ${t.operator.join(".")} in a checked body`, location: t.location });
      return;
    case "array":
    case "set":
    case "object": {
      const ground = groundValue(t);
      if (ground === null) return planComposite(c, t, k);
      const l = c.w.newLocal();
      c.w.emit({ type: "MakeConstStmt", index: c.s.statics.constant(ground), target: l });
      return k(local(l));
    }
    case "arraycomprehension":
    case "setcomprehension":
    case "objectcomprehension":
      return planComprehension(c, t, k);
  }
}

/** A composite with a non-ground member, built at run time. */
function planComposite(c: Ctx, t: Extract<Term, { type: "array" | "set" | "object" }>, k: (o: Operand) => void): void {
  switch (t.type) {
    case "array":
      return planTerms(c, t.items, (ops) => {
        const l = c.w.newLocal();
        c.w.emit({ type: "MakeArrayStmt", capacity: ops.length, target: l });
        for (const o of ops) c.w.emit({ type: "ArrayAppendStmt", array: l, value: o });
        k(local(l));
      });
    case "set":
      return planTerms(c, t.items, (ops) => {
        const l = c.w.newLocal();
        c.w.emit({ type: "MakeSetStmt", target: l });
        for (const o of ops) c.w.emit({ type: "SetAddStmt", set: l, value: o });
        k(local(l));
      });
    case "object": {
      const template = objectTemplate(t);
      if (template !== null) {
        // Ground members come from a static template; only the others are inserted.
        const open = t.items.filter((_, i) => template.open.includes(i));
        return planTerms(c, open.map(([, v]) => v), (ops) => {
          const l = c.w.newLocal();
          c.w.emit({ type: "MakeConstStmt", index: c.s.statics.constant(template.value), target: l, copy: true });
          open.forEach(([kt], i) => {
            const key = str(c.s.statics.string(kt.type === "string" ? kt.value : ""));
            c.w.emit({ type: "ObjectInsertStmt", object: l, key, value: ops[i]! });
          });
          k(local(l));
        });
      }
      return planTerms(c, t.items.flat(), (ops) => {
        const l = c.w.newLocal();
        c.w.emit({ type: "MakeObjectStmt", target: l });
        for (let i = 0; i < ops.length; i += 2) {
          c.w.emit({ type: "ObjectInsertStmt", object: l, key: ops[i]!, value: ops[i + 1]! });
        }
        k(local(l));
      });
    }
  }
}

export function makeNumber(c: Ctx, text: string): number {
  const l = c.w.newLocal();
  const n = Number(text);
  if (/^-?\d+$/.test(text) && Math.abs(n) < SAFE) {
    c.w.emit({ type: "MakeNumberIntStmt", value: n, target: l });
  } else {
    c.w.emit({ type: "MakeNumberRefStmt", index: c.s.statics.string(text), target: l });
  }
  return l;
}

export function planTerms(c: Ctx, ts: readonly Term[], k: (ops: Operand[]) => void, acc: Operand[] = []): void {
  if (acc.length === ts.length) return k(acc);
  planTerm(c, ts[acc.length]!, (o) => planTerms(c, ts, k, [...acc, o]));
}

type Comprehension = Extract<Term, { type: "arraycomprehension" | "setcomprehension" | "objectcomprehension" }>;

function planComprehension(c: Ctx, t: Comprehension, k: (o: Operand) => void): void {
  const l = c.w.newLocal();
  const make = t.type === "arraycomprehension" ? "MakeArrayStmt" : t.type === "setcomprehension" ? "MakeSetStmt" : "MakeObjectStmt";
  if (make === "MakeArrayStmt") c.w.emit({ type: make, capacity: 0, target: l });
  else c.w.emit({ type: make, target: l });
  const block = nested(c, () =>
    c.s.ops.body(c, t.body, () => {
      if (t.type === "objectcomprehension") {
        planTerms(c, [t.key, t.value], ([key, value]) =>
          c.w.emit({ type: "ObjectInsertOnceStmt", object: l, key: key!, value: value!, message: "eval_conflict_error: object keys must be unique" }),
        );
      } else {
        planTerm(c, t.term, (o) =>
          c.w.emit(t.type === "arraycomprehension" ? { type: "ArrayAppendStmt", array: l, value: o } : { type: "SetAddStmt", set: l, value: o }),
        );
      }
    }),
  );
  c.w.emit({ type: "BlockStmt", blocks: [block] });
  k(local(l));
}

/** A term that can only be matched structurally: a composite with unbound variables. */
function isPattern(c: Ctx, t: Term): boolean {
  if (t.type === "var") return !isBound(c, t.name) && !isGlobalName(c, t.name);
  if (t.type === "array" || t.type === "object") return unboundVars(c, t).length > 0;
  return false;
}

/** `a = b`: binds unbound variables on either side, compares the rest. */
export function unify(c: Ctx, a: Term, b: Term, k: () => void): void {
  c.w.loc = locOf(c, a.location);
  if (a.type === "var" && isPattern(c, a)) return planTerm(c, b, (o) => unifyOperand(c, a, o, k));
  if (b.type === "var" && isPattern(c, b)) return planTerm(c, a, (o) => unifyOperand(c, b, o, k));
  if (a.type === "array" && b.type === "array" && (isPattern(c, a) || isPattern(c, b))) {
    if (a.items.length !== b.items.length) return fail(c, k);
    return unifyPairs(c, a.items.map((x, i) => [x, b.items[i]!] as const), k);
  }
  if (a.type === "object" && b.type === "object" && (isPattern(c, a) || isPattern(c, b))) {
    // Keys pair up at compile time when they are literals or the same bound variable.
    const keyOf = (x: Term): string | null =>
      x.type === "string" ? `s${x.value}` : x.type === "number" ? `n${x.text}` : x.type === "var" && isBound(c, x.name) ? `v${x.name}` : null;
    const bByKey = new Map(b.items.map(([key, v]) => [keyOf(key), v] as const));
    const paired = a.items.length === b.items.length && a.items.every(([key]) => keyOf(key) !== null && bByKey.has(keyOf(key)));
    if (paired) return unifyPairs(c, a.items.map(([key, v]) => [v, bByKey.get(keyOf(key))!] as const), k);
    const literalKeys = [...a.items, ...b.items].every(([key]) => key.type === "string" || key.type === "number");
    if (literalKeys || a.items.length !== b.items.length) return fail(c, k);
    // Variable keys whose values are only known at run time: the side without unbound
    // variables is evaluated and the other matched against it (below).
  }
  if (isPattern(c, a)) return planTerm(c, b, (o) => unifyOperand(c, a, o, k));
  if (isPattern(c, b)) return planTerm(c, a, (o) => unifyOperand(c, b, o, k));
  planTerm(c, a, (oa) =>
    planTerm(c, b, (ob) => {
      c.w.emit({ type: "EqualStmt", a: oa, b: ob });
      k();
    }),
  );
}

/** Pairs with a bindable side first would be best; pairs are tried left to right, patterns last. */
function unifyPairs(c: Ctx, pairs: readonly (readonly [Term, Term])[], k: () => void): void {
  if (pairs.length === 0) return k();
  const i = pairs.findIndex(([x, y]) => !(isPattern(c, x) && isPattern(c, y)));
  const at = i < 0 ? 0 : i;
  const [x, y] = pairs[at]!;
  unify(c, x, y, () => unifyPairs(c, [...pairs.slice(0, at), ...pairs.slice(at + 1)], k));
}

function fail(c: Ctx, k: () => void): void {
  c.w.emit({ type: "EqualStmt", a: bool(true), b: bool(false) });
  k();
}

/** Matches term `t` against an evaluated value `o`. */
export function unifyOperand(c: Ctx, t: Term, o: Operand, k: () => void): void {
  if (t.type === "var" && !isBound(c, t.name) && !isGlobalName(c, t.name)) {
    return bindOperand(c, t.name, o, k);
  }
  if (t.type === "array" && isPattern(c, t)) {
    c.w.emit({ type: "IsArrayStmt", source: o });
    const n = c.w.newLocal();
    c.w.emit({ type: "LenStmt", source: o, target: n });
    const want = c.w.newLocal();
    c.w.emit({ type: "MakeNumberIntStmt", value: t.items.length, target: want });
    c.w.emit({ type: "EqualStmt", a: local(n), b: local(want) });
    const items = t.items.map((item, i) => {
      const idx = c.w.newLocal();
      c.w.emit({ type: "MakeNumberIntStmt", value: i, target: idx });
      const v = c.w.newLocal();
      c.w.emit({ type: "DotStmt", source: o, key: local(idx), target: v });
      return [item, v] as const;
    });
    return unifyOperands(c, items, k);
  }
  if (t.type === "object" && isPattern(c, t)) {
    c.w.emit({ type: "IsObjectStmt", source: o });
    const n = c.w.newLocal();
    c.w.emit({ type: "LenStmt", source: o, target: n });
    const want = c.w.newLocal();
    c.w.emit({ type: "MakeNumberIntStmt", value: t.items.length, target: want });
    c.w.emit({ type: "EqualStmt", a: local(n), b: local(want) });
    return planTerms(c, t.items.map(([key]) => key), (keys) => {
      const items = t.items.map(([, value], i) => {
        const v = c.w.newLocal();
        c.w.emit({ type: "DotStmt", source: o, key: keys[i]!, target: v });
        return [value, v] as const;
      });
      unifyOperands(c, items, k);
    });
  }
  planTerm(c, t, (ot) => {
    c.w.emit({ type: "EqualStmt", a: ot, b: o });
    k();
  });
}

function unifyOperands(c: Ctx, items: readonly (readonly [Term, number])[], k: () => void): void {
  if (items.length === 0) return k();
  const [t, l] = items[0]!;
  unifyOperand(c, t, local(l), () => unifyOperands(c, items.slice(1), k));
}

export { asLocal };
