// Objects and sets: hashed lookups, appends that defer sorting, iteration in key
// order, and the structural operations generated code needs (merge, upsert).
//
// An object or set made by mkObject/mkSet keeps a hash index once it has
// INDEX_MIN entries (keyindex.ts). A key that sorts after the last one is
// appended in place; any other new key is appended too and the collection is
// marked F_UNSORTED; the accessors in value.ts sort it (order.ts) before anything
// reads entries by position. So building a collection costs O(n) hashing plus at
// most one O(n log n) sort, and lookups never search linearly.
import { building, isYoung } from "./memory";
import {
  tag, colLen, colData, rawData, colFlags, setColLen, growFor, arrGet, objKey, objVal, objSetVal, setGet,
  mkArray, mkObject, mkSet, mkInt, strLen, F_EXT, F_UNSORTED, T_ARRAY, T_OBJECT, T_SET, T_STRING, T_NUMBER,
} from "./value";
import { compare, equal, strEqual } from "./compare";
import { toI64, okInt } from "./number";
import { INDEX_MIN, indexOf, buildIndex, probe, lastHash, indexAppend, copyIndex } from "./keyindex";

/** `locate` result for a key the index says is absent (no insertion point known). */
const ABSENT: i32 = i32.MIN_VALUE;

@inline function shiftOf(v: usize): usize {
  return tag(v) == T_OBJECT ? 3 : 2;
}

/** Binary search of the sorted entries: index of key, or -(insertion point)-1. */
function bsearch(v: usize, key: usize): i32 {
  const d = colData(v);
  const sh = shiftOf(v);
  let lo = 0, hi = colLen(v) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compare(<usize>load<u32>(d + (<usize>mid << sh)), key);
    if (c == 0) return mid;
    if (c < 0) lo = mid + 1; else hi = mid - 1;
  }
  return -lo - 1;
}

/**
 * Storage position of key in v (an object or set): >= 0 found; ABSENT when the
 * hash index answered; otherwise -(insertion point)-1 in the (now) sorted entries.
 */
function locate(v: usize, key: usize): i32 {
  if (colLen(v) >= INDEX_MIN && (colFlags(v) & F_EXT) != 0) {
    let ix = indexOf(v);
    if (ix == 0) ix = buildIndex(v, isYoung(v) && !building());
    if (ix != 0) {
      const p = probe(v, ix, key);
      return p >= 0 ? p : ABSENT;
    }
  }
  return bsearch(v, key);
}

/**
 * Storage position of key in v, or -1: `locate` for lookups. A string key in a
 * collection too short to be indexed is found by equality (lengths first), which
 * is cheaper than ordering comparisons.
 */
function lookup(v: usize, key: usize): i32 {
  const n = colLen(v);
  if (n < INDEX_MIN && tag(key) == T_STRING) {
    const d = rawData(v);
    const sh = shiftOf(v);
    const len = strLen(key);
    for (let i = 0; i < n; i++) {
      const k = <usize>load<u32>(d + (<usize>i << sh));
      if (k == key) return i;
      if (tag(k) == T_STRING && strLen(k) == len && strEqual(k, key)) return i;
    }
    return -1;
  }
  const p = locate(v, key);
  return p >= 0 ? p : -1;
}

/** Position of key in the sorted entries, or -(insertion point)-1. */
function findSorted(v: usize, key: usize): i32 {
  if (colFlags(v) & F_UNSORTED) colData(v);
  const p = locate(v, key);
  return p == ABSENT ? bsearch(v, key) : p;
}

export function objFind(obj: usize, key: usize): i32 {
  return findSorted(obj, key);
}

export function setFind(set: usize, x: usize): i32 {
  return findSorted(set, x);
}

/** Adds an entry for a key `locate` did not find (p is its result). */
function addEntry(v: usize, key: usize, val: usize, p: i32): void {
  const sh = shiftOf(v);
  const slot: i32 = 1 << <i32>sh;
  const n = colLen(v);
  if (p == ABSENT) {
    const h = lastHash;
    const ix = indexOf(v);
    const d = growFor(v, slot);
    const e = d + (<usize>n << sh);
    store<u32>(e, <u32>key);
    if (sh == 3) store<u32>(e, <u32>val, 4);
    setColLen(v, n + 1);
    const f = colFlags(v);
    if ((f & F_UNSORTED) == 0 && compare(<usize>load<u32>(e - <usize>slot), key) > 0) {
      store<u8>(v, f | F_UNSORTED, 1);
      store<i32>(v, n, 20);
    }
    indexAppend(v, ix, h);
    return;
  }
  const at = -p - 1;
  const d = growFor(v, slot);
  const e = d + (<usize>at << sh);
  if (at < n) memory.copy(e + <usize>slot, e, <usize>(n - at) << sh);
  store<u32>(e, <u32>key);
  if (sh == 3) store<u32>(e, <u32>val, 4);
  setColLen(v, n + 1);
  if (n + 1 == INDEX_MIN && (colFlags(v) & F_EXT) != 0 && isYoung(v) && !building()) buildIndex(v, true);
}

@inline function rawVal(obj: usize, p: i32): usize {
  return <usize>load<u32>(rawData(obj) + (<usize>p << 3), 4);
}

@inline function setRawVal(obj: usize, p: i32, x: usize): void {
  store<u32>(rawData(obj) + (<usize>p << 3), <u32>x, 4);
}

export function objGet(obj: usize, key: usize): usize {
  const p = lookup(obj, key);
  return p >= 0 ? rawVal(obj, p) : 0;
}

export function objInsert(obj: usize, key: usize, val: usize): void {
  const p = locate(obj, key);
  if (p >= 0) setRawVal(obj, p, val);
  else addEntry(obj, key, val, p);
}

/** Inserts unless the key holds a different value: 1 ok, 0 conflict. */
export function objInsertOnce(obj: usize, key: usize, val: usize): i32 {
  const p = locate(obj, key);
  if (p >= 0) return equal(rawVal(obj, p), val) ? 1 : 0;
  addEntry(obj, key, val, p);
  return 1;
}

export function setAdd(set: usize, x: usize): void {
  const p = locate(set, x);
  if (p < 0) addEntry(set, x, 0, p);
}

export function setHas(set: usize, x: usize): bool {
  return lookup(set, x) >= 0;
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
    const p = lookup(v, key);
    return p >= 0 ? <usize>load<u32>(rawData(v) + (<usize>p << 2)) : 0;
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
      const i = findSorted(v, prev);
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
  if (n > 0) memory.copy(rawData(c), colData(v), <usize>n * slot);
  setColLen(c, n);
  if (t != T_ARRAY) {
    const ix = indexOf(v);
    if (ix != 0) copyIndex(c, ix);
  }
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
    const j = locate(r, k);
    if (j < 0) { addEntry(r, k, bv, j); continue; }
    const m = merge(rawVal(r, j), bv);
    if (m == 0) return 0;
    setRawVal(r, j, m);
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

