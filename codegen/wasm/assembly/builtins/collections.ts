// Set, object and array builtins.
import {
  mkSet, mkArray, mkObject, mkInt, mkBool, colLen, colData, setColLen, arrGet, arrPush, objKey, objVal, objPushSorted,
  setGet, tag, T_ARRAY, T_OBJECT, T_SET,
} from "../value";
import { toI64, okInt } from "../number";
import { equal } from "../compare";
import { objFind, objGet, setHas, setAdd, valueGet, shallowCopy, objInsert } from "../collections";
import { typeError, typeErrorMsg, typeErrorContaining, notInteger } from "../errors";
import { isArr, isSet, isObj, isNum } from "./util";

// ---- sets
function union2(a: usize, b: usize): usize {
  const r = shallowCopy(a);
  const n = colLen(b);
  for (let i = 0; i < n; i++) setAdd(r, setGet(b, i));
  return r;
}

function intersect2(a: usize, b: usize): usize {
  const r = mkSet(0);
  const n = colLen(a);
  for (let i = 0; i < n; i++) {
    const x = setGet(a, i);
    if (setHas(b, x)) arrPush(r, x);
  }
  return r;
}

export function opa_set_union(a: usize, b: usize): usize {
  if (!isSet(a)) return typeError("or", 1, "set", a);
  if (!isSet(b)) return typeError("or", 2, "set", b);
  return union2(a, b);
}

export function opa_set_intersection(a: usize, b: usize): usize {
  if (!isSet(a)) return typeError("and", 1, "set", a);
  if (!isSet(b)) return typeError("and", 2, "set", b);
  return intersect2(a, b);
}

export function opa_sets_union(sets: usize): usize {
  if (!isSet(sets)) return typeError("union", 1, "set", sets);
  let r = mkSet(0);
  const n = colLen(sets);
  for (let i = 0; i < n; i++) {
    const s = setGet(sets, i);
    if (!isSet(s)) return typeError("union", 1, "set", s);
    r = union2(r, s);
  }
  return r;
}

export function opa_sets_intersection(sets: usize): usize {
  if (!isSet(sets)) return typeError("intersection", 1, "set", sets);
  const n = colLen(sets);
  if (n == 0) return mkSet(0);
  let r = setGet(sets, 0);
  if (!isSet(r)) return typeError("intersection", 1, "set", r);
  for (let i = 1; i < n; i++) {
    const s = setGet(sets, i);
    if (!isSet(s)) return typeError("intersection", 1, "set", s);
    r = intersect2(r, s);
  }
  return r;
}

// ---- objects
export function tg_object_get(obj: usize, key: usize, dflt: usize): usize {
  if (!isObj(obj)) return typeError("object.get", 1, "object", obj);
  if (key == 0 || dflt == 0) return 0;
  if (isArr(key)) {
    let cur = obj;
    const n = colLen(key);
    for (let i = 0; i < n; i++) {
      const t = tag(cur);
      if (t != T_OBJECT && t != T_ARRAY && t != T_SET) return dflt;
      cur = valueGet(cur, arrGet(key, i));
      if (cur == 0) return dflt;
    }
    return cur;
  }
  const v = objGet(obj, key);
  return v != 0 ? v : dflt;
}

export function tg_object_keys(obj: usize): usize {
  if (!isObj(obj)) return typeError("object.keys", 1, "object", obj);
  const n = colLen(obj);
  const r = mkSet(n);
  for (let i = 0; i < n; i++) arrPush(r, objKey(obj, i)); // keys are sorted already
  return r;
}

/** Membership test in a key collection (array, set, or object keys). */
function keysContain(keys: usize, k: usize): bool {
  const t = tag(keys);
  if (t == T_SET) return setHas(keys, k);
  if (t == T_OBJECT) return objFind(keys, k) >= 0;
  const n = colLen(keys);
  for (let i = 0; i < n; i++) if (equal(arrGet(keys, i), k)) return true;
  return false;
}

export function tg_object_remove(obj: usize, keys: usize): usize {
  if (!isObj(obj)) return typeError("object.remove", 1, "object", obj);
  if (!isArr(keys) && !isSet(keys) && !isObj(keys)) return typeError("object.remove", 2, "one of {object, array, set}", keys);
  const n = colLen(obj);
  const r = mkObject(n);
  for (let i = 0; i < n; i++) {
    const k = objKey(obj, i);
    if (!keysContain(keys, k)) objPushSorted(r, k, objVal(obj, i));
  }
  return r;
}

export function tg_object_filter(obj: usize, keys: usize): usize {
  if (!isObj(obj)) return typeError("object.filter", 1, "object", obj);
  if (!isArr(keys) && !isSet(keys) && !isObj(keys)) return typeError("object.filter", 2, "one of {object, array, set}", keys);
  const n = colLen(obj);
  const r = mkObject(0);
  for (let i = 0; i < n; i++) {
    const k = objKey(obj, i);
    if (keysContain(keys, k)) objPushSorted(r, k, objVal(obj, i));
  }
  return r;
}

/** Recursive merge where b wins, as OPA's object.union. */
function unionObjects(a: usize, b: usize): usize {
  const r = shallowCopy(a);
  const n = colLen(b);
  for (let i = 0; i < n; i++) {
    const k = objKey(b, i);
    const bv = objVal(b, i);
    const av = objGet(r, k);
    if (av != 0 && isObj(av) && isObj(bv)) objInsert(r, k, unionObjects(av, bv));
    else objInsert(r, k, bv);
  }
  return r;
}

export function tg_object_union(a: usize, b: usize): usize {
  if (!isObj(a)) return typeError("object.union", 1, "object", a);
  if (!isObj(b)) return typeError("object.union", 2, "object", b);
  return unionObjects(a, b);
}

export function tg_object_union_n(objs: usize): usize {
  if (!isArr(objs)) return typeError("object.union_n", 1, "array", objs);
  let r = mkObject(0);
  const n = colLen(objs);
  for (let i = 0; i < n; i++) {
    const o = arrGet(objs, i);
    if (!isObj(o)) return typeErrorContaining("object.union_n", 1, "array of objects", objs, o);
    r = unionObjects(r, o);
  }
  return r;
}

// ---- arrays
export function opa_array_concat(a: usize, b: usize): usize {
  if (!isArr(a)) return typeError("array.concat", 1, "array", a);
  if (!isArr(b)) return typeError("array.concat", 2, "array", b);
  const na = colLen(a), nb = colLen(b);
  const r = mkArray(na + nb);
  if (na > 0) memory.copy(colData(r), colData(a), <usize>na << 2);
  if (nb > 0) memory.copy(colData(r) + (<usize>na << 2), colData(b), <usize>nb << 2);
  setColLen(r, na + nb);
  return r;
}

export function opa_array_slice(a: usize, start: usize, stop: usize): usize {
  if (!isArr(a)) return typeError("array.slice", 1, "array", a);
  if (!isNum(start)) return typeError("array.slice", 2, "number", start);
  let s = toI64(start);
  if (!okInt) return notInteger("array.slice", 2);
  if (!isNum(stop)) return typeError("array.slice", 3, "number", stop);
  let e = toI64(stop);
  if (!okInt) return notInteger("array.slice", 3);
  const n = <i64>colLen(a);
  if (s < 0) s = 0;
  if (e > n) e = n;
  if (s >= e) return mkArray(0);
  const len = <i32>(e - s);
  const r = mkArray(len);
  memory.copy(colData(r), colData(a) + (<usize>s << 2), <usize>len << 2);
  setColLen(r, len);
  return r;
}

export function tg_array_reverse(a: usize): usize {
  if (!isArr(a)) return typeError("array.reverse", 1, "array", a);
  const n = colLen(a);
  const r = mkArray(n);
  for (let i = n - 1; i >= 0; i--) arrPush(r, arrGet(a, i));
  return r;
}

/** array.flatten: array items of arr are unpacked one level, other items kept as they are. */
export function tg_array_flatten(a: usize): usize {
  if (!isArr(a)) return typeError("array.flatten", 1, "array", a);
  const n = colLen(a);
  let total: i32 = 0;
  for (let i = 0; i < n; i++) {
    const x = arrGet(a, i);
    total += isArr(x) ? colLen(x) : 1;
  }
  const r = mkArray(total);
  for (let i = 0; i < n; i++) {
    const x = arrGet(a, i);
    if (!isArr(x)) { arrPush(r, x); continue; }
    const m = colLen(x);
    for (let j = 0; j < m; j++) arrPush(r, arrGet(x, j));
  }
  return r;
}

// ---- object.subset: objects recursively, sets by membership, arrays as a contiguous run
function setSubset(sup: usize, sub: usize): bool {
  const n = colLen(sub);
  for (let i = 0; i < n; i++) if (!setHas(sup, setGet(sub, i))) return false;
  return true;
}

function arraySubset(sup: usize, sub: usize): bool {
  const n = colLen(sup), m = colLen(sub);
  if (m == 0) return true;
  for (let start = 0; start + m <= n; start++) {
    let j = 0;
    while (j < m && equal(arrGet(sup, start + j), arrGet(sub, j))) j++;
    if (j == m) return true;
  }
  return false;
}

function arrayHasAll(sup: usize, sub: usize): bool {
  const n = colLen(sub), k = colLen(sup);
  for (let i = 0; i < n; i++) {
    const x = setGet(sub, i);
    let found = false;
    for (let j = 0; j < k && !found; j++) found = equal(arrGet(sup, j), x);
    if (!found) return false;
  }
  return true;
}

function objectSubset(sup: usize, sub: usize): bool {
  const n = colLen(sub);
  for (let i = 0; i < n; i++) {
    const a = objGet(sup, objKey(sub, i));
    if (a == 0) return false;
    const b = objVal(sub, i);
    const ta = tag(a), tb = tag(b);
    if (ta == T_OBJECT && tb == T_OBJECT) { if (!objectSubset(a, b)) return false; }
    else if (ta == T_SET && tb == T_SET) { if (!setSubset(a, b)) return false; }
    else if (ta == T_ARRAY && tb == T_ARRAY) { if (!arraySubset(a, b)) return false; }
    else if (!equal(a, b)) return false;
  }
  return true;
}

export function tg_object_subset(sup: usize, sub: usize): usize {
  if (sup == 0 || sub == 0) return 0;
  const ta = tag(sup), tb = tag(sub);
  if (ta == T_OBJECT && tb == T_OBJECT) return mkBool(objectSubset(sup, sub));
  if (ta == T_SET && tb == T_SET) return mkBool(setSubset(sup, sub));
  if (ta == T_ARRAY && tb == T_ARRAY) return mkBool(arraySubset(sup, sub));
  if (ta == T_ARRAY && tb == T_SET) return mkBool(arrayHasAll(sup, sub));
  return typeErrorMsg("object.subset", "both arguments to object.subset must be of the same type or array and set");
}

// ---- membership (`in`)
export function tg_member_2(x: usize, coll: usize): usize {
  if (x == 0 || coll == 0) return 0;
  const t = tag(coll);
  if (t == T_SET) return mkBool(setHas(coll, x));
  if (t == T_ARRAY) {
    const n = colLen(coll);
    for (let i = 0; i < n; i++) if (equal(arrGet(coll, i), x)) return mkBool(true);
    return mkBool(false);
  }
  if (t == T_OBJECT) {
    const n = colLen(coll);
    for (let i = 0; i < n; i++) if (equal(objVal(coll, i), x)) return mkBool(true);
    return mkBool(false);
  }
  return mkBool(false);
}

export function tg_member_3(k: usize, v: usize, coll: usize): usize {
  if (k == 0 || v == 0 || coll == 0) return 0;
  const t = tag(coll);
  if (t == T_ARRAY || t == T_OBJECT) {
    const got = valueGet(coll, k);
    return mkBool(got != 0 && equal(got, v));
  }
  return mkBool(false);
}

