// Aggregates: count, sum, product, max, min, sort, all, any.
import { mkInt, mkArray, mkBool, colLen, colData, setColLen, arrGet, strLen, strPtr, boolVal, tag, T_BOOLEAN } from "../value";
import { numAdd, numMul } from "../number";
import { compare } from "../compare";
import { mergeSort } from "../json-parse";
import { typeError, typeErrorContaining } from "../errors";
import { isNum, isStr, isArr, isSet, isObj, runeCount } from "./util";

export function opa_agg_count(v: usize): usize {
  if (isArr(v) || isSet(v) || isObj(v)) return mkInt(colLen(v));
  if (isStr(v)) return mkInt(runeCount(strPtr(v), strLen(v)));
  return typeError("count", 1, "one of {array, object, set, string}", v);
}

function numbersOnly(name: string, v: usize): bool {
  const n = colLen(v);
  for (let i = 0; i < n; i++) {
    const x = arrGet(v, i);
    if (!isNum(x)) { typeErrorContaining(name, 1, isSet(v) ? "set of numbers" : "array of numbers", v, x); return false; }
  }
  return true;
}

export function opa_agg_sum(v: usize): usize {
  if (!isArr(v) && !isSet(v)) return typeError("sum", 1, "one of {array, set}", v);
  if (!numbersOnly("sum", v)) return 0;
  let acc = mkInt(0);
  const n = colLen(v);
  for (let i = 0; i < n; i++) acc = numAdd(acc, arrGet(v, i));
  return acc;
}

export function opa_agg_product(v: usize): usize {
  if (!isArr(v) && !isSet(v)) return typeError("product", 1, "one of {array, set}", v);
  if (!numbersOnly("product", v)) return 0;
  let acc = mkInt(1);
  const n = colLen(v);
  for (let i = 0; i < n; i++) acc = numMul(acc, arrGet(v, i));
  return acc;
}

function extreme(name: string, v: usize, sign: i32): usize {
  if (!isArr(v) && !isSet(v)) return typeError(name, 1, "one of {array, set}", v);
  const n = colLen(v);
  if (n == 0) return 0;
  let best = arrGet(v, 0);
  for (let i = 1; i < n; i++) {
    const x = arrGet(v, i);
    if (compare(x, best) * sign > 0) best = x;
  }
  return best;
}

export function opa_agg_max(v: usize): usize { return extreme("max", v, 1); }
export function opa_agg_min(v: usize): usize { return extreme("min", v, -1); }

export function opa_agg_sort(v: usize): usize {
  if (!isArr(v) && !isSet(v)) return typeError("sort", 1, "one of {array, set}", v);
  const n = colLen(v);
  const r = mkArray(n);
  if (n > 0) memory.copy(colData(r), colData(v), <usize>n << 2);
  setColLen(r, n);
  if (isArr(v)) mergeSort(colData(r), n, 4);
  return r;
}

function isTrue(x: usize): bool {
  return tag(x) == T_BOOLEAN && boolVal(x);
}

export function opa_agg_all(v: usize): usize {
  if (!isArr(v) && !isSet(v)) return typeError("all", 1, "one of {array, set}", v);
  const n = colLen(v);
  for (let i = 0; i < n; i++) if (!isTrue(arrGet(v, i))) return mkBool(false);
  return mkBool(true);
}

export function opa_agg_any(v: usize): usize {
  if (!isArr(v) && !isSet(v)) return typeError("any", 1, "one of {array, set}", v);
  const n = colLen(v);
  for (let i = 0; i < n; i++) if (isTrue(arrGet(v, i))) return mkBool(true);
  return mkBool(false);
}
