// Sorted objects and sets, lookups, iteration, and the structural operations
// generated code needs (merge, upsert along a path).
import { alloc } from "./memory";
import {
  tag, colLen, colData, setColLen, growFor, arrGet, arrPush, objKey, objVal, objSetVal, setGet,
  mkArray, mkObject, mkSet, mkInt, strLen, T_ARRAY, T_OBJECT, T_SET, T_STRING, T_NUMBER,
} from "./value";
import { compare, equal } from "./compare";
import { toI64, okInt } from "./number";

/** Binary search: index of key, or -(insertion point)-1. */
export function objFind(obj: usize, key: usize): i32 {
  let lo = 0, hi = colLen(obj) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compare(objKey(obj, mid), key);
    if (c == 0) return mid;
    if (c < 0) lo = mid + 1; else hi = mid - 1;
  }
  return -lo - 1;
}

export function setFind(set: usize, x: usize): i32 {
  let lo = 0, hi = colLen(set) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compare(setGet(set, mid), x);
    if (c == 0) return mid;
    if (c < 0) lo = mid + 1; else hi = mid - 1;
  }
  return -lo - 1;
}

export function objGet(obj: usize, key: usize): usize {
  const i = objFind(obj, key);
  return i >= 0 ? objVal(obj, i) : 0;
}

export function objInsert(obj: usize, key: usize, val: usize): void {
  const i = objFind(obj, key);
  if (i >= 0) { objSetVal(obj, i, val); return; }
  const at = -i - 1;
  const d = growFor(obj, 8);
  const n = colLen(obj);
  const p = d + (<usize>at << 3);
  if (at < n) memory.copy(p + 8, p, <usize>(n - at) << 3);
  store<u32>(p, <u32>key);
  store<u32>(p, <u32>val, 4);
  setColLen(obj, n + 1);
}

/** Inserts unless the key holds a different value: 1 ok, 0 conflict. */
export function objInsertOnce(obj: usize, key: usize, val: usize): i32 {
  const i = objFind(obj, key);
  if (i >= 0) return equal(objVal(obj, i), val) ? 1 : 0;
  objInsert(obj, key, val);
  return 1;
}

export function setAdd(set: usize, x: usize): void {
  const i = setFind(set, x);
  if (i >= 0) return;
  const at = -i - 1;
  const d = growFor(set, 4);
  const n = colLen(set);
  const p = d + (<usize>at << 2);
  if (at < n) memory.copy(p + 4, p, <usize>(n - at) << 2);
  store<u32>(p, <u32>x);
  setColLen(set, n + 1);
}

export function setHas(set: usize, x: usize): bool {
  return setFind(set, x) >= 0;
}

/** opa_value_get semantics. */
export function valueGet(v: usize, key: usize): usize {
  if (v == 0 || key == 0) return 0;
  const t = tag(v);
  if (t == T_OBJECT) return objGet(v, key);
  if (t == T_ARRAY) {
    if (tag(key) != T_NUMBER) return 0;
    const i = toI64(key);
    if (!okInt || i < 0 || i >= <i64>colLen(v)) return 0;
    return arrGet(v, <i32>i);
  }
  if (t == T_SET) {
    const i = setFind(v, key);
    return i >= 0 ? setGet(v, i) : 0;
  }
  return 0;
}

export function valueLength(v: usize): i32 {
  if (v == 0) return 0;
  const t = tag(v);
  if (t >= T_ARRAY) return colLen(v);
  if (t == T_STRING) return <i32>strLen(v);
  return 0;
}

export function keyAt(v: usize, i: i32): usize {
  const t = tag(v);
  if (t == T_ARRAY) return mkInt(i);
  if (t == T_OBJECT) return objKey(v, i);
  if (t == T_SET) return setGet(v, i);
  return 0;
}

export function valueAt(v: usize, i: i32): usize {
  const t = tag(v);
  if (t == T_ARRAY || t == T_SET) return arrGet(v, i);
  if (t == T_OBJECT) return objVal(v, i);
  return 0;
}

/** OPA's opa_value_iter: the key after `prev` (first when prev is 0). */
export function valueIter(v: usize, prev: usize): usize {
  if (v == 0) return 0;
  const t = tag(v);
  if (t < T_ARRAY) return 0;
  const n = colLen(v);
  let next = 0;
  if (prev != 0) {
    if (t == T_ARRAY) {
      const i = toI64(prev);
      if (!okInt) return 0;
      next = <i32>i + 1;
    } else {
      const i = t == T_OBJECT ? objFind(v, prev) : setFind(v, prev);
      next = i >= 0 ? i + 1 : -i - 1;
    }
  }
  return next < n ? keyAt(v, next) : 0;
}

export function shallowCopy(v: usize): usize {
  if (v == 0) return 0;
  const t = tag(v);
  if (t < T_ARRAY) return v;
  const n = colLen(v);
  const slot: usize = t == T_OBJECT ? 8 : 4;
  const c = t == T_ARRAY ? mkArray(n) : t == T_OBJECT ? mkObject(n) : mkSet(n);
  if (n > 0) memory.copy(colData(c), colData(v), <usize>n * slot);
  setColLen(c, n);
  return c;
}

/** Deep merge of objects; 0 on conflict (a non-object meets a different value). */
export function merge(a: usize, b: usize): usize {
  if (a == 0) return b;
  if (b == 0) return a;
  if (tag(a) != T_OBJECT || tag(b) != T_OBJECT) return equal(a, b) ? a : 0;
  const r = shallowCopy(a);
  const n = colLen(b);
  for (let i = 0; i < n; i++) {
    const k = objKey(b, i);
    const bv = objVal(b, i);
    const j = objFind(r, k);
    if (j < 0) { objInsert(r, k, bv); continue; }
    const m = merge(objVal(r, j), bv);
    if (m == 0) return 0;
    objSetVal(r, j, m);
  }
  return r;
}

/** Copy of `base` with the value at `path` (array of keys) set to `v`. */
export function upsert(base: usize, path: usize, v: usize): usize {
  return upsertAt(base, path, 0, v);
}

function upsertAt(base: usize, path: usize, i: i32, v: usize): usize {
  if (i >= colLen(path)) return v;
  const k = arrGet(path, i);
  const obj = base != 0 && tag(base) == T_OBJECT ? shallowCopy(base) : mkObject(1);
  const child = objGet(obj, k);
  objInsert(obj, k, upsertAt(child, path, i + 1, v));
  return obj;
}

/** Copy of `base` without the value at `path`; base itself when the path is absent. */
export function removePath(base: usize, path: usize): usize {
  return removeAt(base, path, 0);
}

function removeAt(base: usize, path: usize, i: i32): usize {
  const n = colLen(path);
  if (base == 0 || tag(base) != T_OBJECT || i >= n) return base;
  const k = arrGet(path, i);
  const j = objFind(base, k);
  if (j < 0) return base;
  const r = shallowCopy(base);
  if (i == n - 1) {
    const d = colData(r);
    const m = colLen(r);
    const p = d + (<usize>j << 3);
    if (j < m - 1) memory.copy(p, p + 8, <usize>(m - 1 - j) << 3);
    setColLen(r, m - 1);
    return r;
  }
  objSetVal(r, j, removeAt(objVal(r, j), path, i + 1));
  return r;
}

