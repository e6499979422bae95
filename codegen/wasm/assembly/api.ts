// Value functions generated code calls (RUNTIME-API.md section 4).
import {
  tag, mkBool, mkInt, mkFloat, mkString, mkArray, mkObject, mkSet, arrPush, NULL_CELL, T_BOOLEAN, T_NUMBER,
  T_OBJECT, T_STRING, boolVal, colLen, rawData, strLen,
} from "./value";
import { INDEX_MIN } from "./keyindex";
import { isStatic, isYoung } from "./memory";
import { parseNumber, toI64, okInt } from "./number";
import { compare, equal, strEqual } from "./compare";
import {
  objInsert, objInsertOnce, setAdd, valueGet, valueLength, valueIter, keyAt, valueAt, shallowCopy, merge, upsert,
  removePath,
} from "./collections";
import { runtimeError, setLocation, currentLocation } from "./errors";

export function opa_null(): usize { return NULL_CELL; }
export function opa_boolean(b: i32): usize { return mkBool(b != 0); }
export function opa_number_int(i: i64): usize { return mkInt(i); }
export function opa_number_float(f: f64): usize { return mkFloat(f); }
export function opa_number_size(i: i32): usize { return mkInt(<i64>i); }
export function opa_number_ref(p: usize, n: usize): usize { return parseNumber(p, n); }
export function opa_string(p: usize, n: usize): usize { return mkString(p, n); }
export function opa_string_terminated(p: usize): usize {
  let n: usize = 0;
  while (load<u8>(p + n) != 0) n++;
  return mkString(p, n);
}
export function opa_array(): usize { return mkArray(0); }
export function opa_array_with_cap(cap: i32): usize { return mkArray(cap); }
export function opa_array_append(arr: usize, v: usize): void { arrPush(arr, v); }
export function opa_object(): usize { return mkObject(0); }
export function opa_object_insert(obj: usize, k: usize, v: usize): void { objInsert(obj, k, v); }
export function tg_object_insert_once(obj: usize, k: usize, v: usize): i32 { return objInsertOnce(obj, k, v); }
export function opa_set(): usize { return mkSet(0); }
export function opa_set_with_cap(cap: i32): usize { return mkSet(cap); }
export function opa_set_add(set: usize, v: usize): void { setAdd(set, v); }

export function opa_value_type(v: usize): i32 { return v == 0 ? 0 : <i32>tag(v); }
export function opa_value_get(v: usize, k: usize): usize {
  // A short object (no hash index) is searched here: first for the very key cell asked
  // for (the policy's member names, which the fast engine also uses as input keys),
  // touching no key cell, then by text, lengths first.
  if (v != 0 && tag(v) == T_OBJECT && tag(k) == T_STRING) {
    const n = colLen(v);
    if (n < INDEX_MIN) {
      const d = rawData(v);
      for (let i = 0; i < n; i++) {
        const at = d + (<usize>i << 3);
        if (<usize>load<u32>(at) == k) return <usize>load<u32>(at, 4);
      }
      const len = strLen(k);
      for (let i = 0; i < n; i++) {
        const at = d + (<usize>i << 3);
        const key = <usize>load<u32>(at);
        if (tag(key) == T_STRING && strLen(key) == len && strEqual(key, k)) {
          // The object now holds the asked-for cell as its key (same text, so the same
          // object), and the next lookup by that cell is found by address: an object of
          // this evaluation (the SDK's parsed input) takes any cell, an object that outlives
          // the evaluation (the data document, host-written input) only a static one (a
          // member name the policy spells out, as `data.toolgate.config`), since any other
          // may die with this evaluation's heap or be reused (a host's string cache).
          if (isYoung(v) || isStatic(k)) store<u32>(at, <u32>k);
          return <usize>load<u32>(at, 4);
        }
      }
      return 0;
    }
  }
  return valueGet(v, k);
}
export function opa_value_length(v: usize): i32 { return valueLength(v); }
export function opa_value_iter(v: usize, prev: usize): usize { return valueIter(v, prev); }
export function tg_key_at(v: usize, i: i32): usize { return keyAt(v, i); }
export function tg_value_at(v: usize, i: i32): usize { return valueAt(v, i); }
export function opa_value_compare(a: usize, b: usize): i32 { return compare(a, b); }
export function tg_value_equal(a: usize, b: usize): i32 { return equal(a, b) ? 1 : 0; }
export function opa_value_merge(a: usize, b: usize): usize { return merge(a, b); }
export function opa_value_shallow_copy(v: usize): usize { return shallowCopy(v); }
export function tg_value_upsert(base: usize, path: usize, v: usize): usize { return upsert(base, path, v); }
export function tg_value_remove_path(base: usize, path: usize): usize { return removePath(base, path); }
export function tg_number_to_i32(v: usize): i32 {
  if (v == 0 || tag(v) != T_NUMBER) return 0;
  const i = toI64(v);
  return okInt ? <i32>i : 0;
}
export function tg_is_true(v: usize): i32 { return v != 0 && tag(v) == T_BOOLEAN && boolVal(v) ? 1 : 0; }
export function opa_runtime_error(file: usize, row: i32, col: i32, msg: usize): void { runtimeError(file, row, col, msg); }
export function tg_set_location(file: usize, row: i32, col: i32): void { setLocation(file, row, col); }
export function tg_location(): usize { return currentLocation(); }
