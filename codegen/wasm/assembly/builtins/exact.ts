// The exact host protocol: operands of host builtins that must tell sets from arrays,
// `1.0` from `1` and keep integers beyond 2^53 cross to JavaScript as JSON text in which
// every object is {"o": [[key, value], ...]} and every set {"s": [...]} (numbers as the
// runtime prints them, digit for digit); results come back in the same form and are
// rebuilt here. The host side is src/policy/host-builtins/exact-value.ts.
import { mkArray, mkObject, mkSet, colLen, arrGet, arrPush, objKey, objVal, setGet, tag, T_ARRAY, T_OBJECT, T_SET } from "../value";
import { objGet, objInsert, setAdd } from "../collections";
import { jsonString } from "../json-print";
import { litString } from "./util";

// Not cached: the heap is reset between evaluations.
function tagO(): usize { return litString("o"); }
function tagS(): usize { return litString("s"); }

function tagged(v: usize): usize {
  const t = tag(v);
  if (t == T_ARRAY) {
    const n = colLen(v);
    const r = mkArray(n);
    for (let i = 0; i < n; i++) arrPush(r, tagged(arrGet(v, i)));
    return r;
  }
  if (t == T_SET) {
    const n = colLen(v);
    const items = mkArray(n);
    for (let i = 0; i < n; i++) arrPush(items, tagged(setGet(v, i)));
    const r = mkObject(1);
    objInsert(r, tagS(), items);
    return r;
  }
  if (t == T_OBJECT) {
    const n = colLen(v);
    const pairs = mkArray(n);
    for (let i = 0; i < n; i++) {
      const pair = mkArray(2);
      arrPush(pair, tagged(objKey(v, i)));
      arrPush(pair, tagged(objVal(v, i)));
      arrPush(pairs, pair);
    }
    const r = mkObject(1);
    objInsert(r, tagO(), pairs);
    return r;
  }
  return v;
}

/** v as a string value of tagged JSON text (0 stays 0: undefined). */
export function tg_exact_encode(v: usize): usize {
  if (v == 0) return 0;
  return jsonString(tagged(v));
}

/** The value a tagged result stands for (0 stays 0); an object that is not a tag is malformed: undefined. */
export function tg_exact_decode(v: usize): usize {
  if (v == 0) return 0;
  const t = tag(v);
  if (t == T_ARRAY) {
    const n = colLen(v);
    const r = mkArray(n);
    for (let i = 0; i < n; i++) {
      const x = tg_exact_decode(arrGet(v, i));
      if (x == 0) return 0;
      arrPush(r, x);
    }
    return r;
  }
  if (t != T_OBJECT) return v;
  const pairs = objGet(v, tagO());
  if (pairs != 0 && tag(pairs) == T_ARRAY) {
    const n = colLen(pairs);
    const r = mkObject(n);
    for (let i = 0; i < n; i++) {
      const pair = arrGet(pairs, i);
      if (tag(pair) != T_ARRAY || colLen(pair) != 2) return 0;
      const k = tg_exact_decode(arrGet(pair, 0));
      const x = tg_exact_decode(arrGet(pair, 1));
      if (k == 0 || x == 0) return 0;
      objInsert(r, k, x);
    }
    return r;
  }
  const items = objGet(v, tagS());
  if (items != 0 && tag(items) == T_ARRAY) {
    const n = colLen(items);
    const r = mkSet(n);
    for (let i = 0; i < n; i++) {
      const x = tg_exact_decode(arrGet(items, i));
      if (x == 0) return 0;
      setAdd(r, x);
    }
    return r;
  }
  return 0;
}
