// Helpers for builtins that are not plain functions: walk (a relation the planner
// scans) and print (the line the emitter hands to env.opa_println).
import { bBegin, bByte, bBytes, bLit, bEnd } from "../memory";
import {
  tag, mkArray, arrPush, arrGet, colLen, colData, setColLen, objKey, objVal, setGet, strLen, strPtr,
  T_ARRAY, T_OBJECT, T_SET, T_STRING, mkInt,
} from "../value";
import { writeRego } from "../json-print";
import { typeError } from "../errors";
import { isArr, isSet } from "./util";

/** Snapshot of the current path as a fresh array. */
function copyPath(path: usize): usize {
  const n = colLen(path);
  const c = mkArray(n);
  if (n > 0) memory.copy(colData(c), colData(path), <usize>n << 2);
  setColLen(c, n);
  return c;
}

function walkInto(out: usize, path: usize, v: usize): void {
  const pair = mkArray(2);
  arrPush(pair, copyPath(path));
  arrPush(pair, v);
  arrPush(out, pair);
  const t = tag(v);
  if (t != T_ARRAY && t != T_OBJECT && t != T_SET) return;
  const n = colLen(v);
  for (let i = 0; i < n; i++) {
    const key = t == T_ARRAY ? mkInt(i) : t == T_OBJECT ? objKey(v, i) : setGet(v, i);
    const child = t == T_OBJECT ? objVal(v, i) : arrGet(v, i);
    arrPush(path, key);
    walkInto(out, path, child);
    setColLen(path, colLen(path) - 1);
  }
}

/**
 * walk(x) as a collection: an array of [path, value] pairs in OPA's order (pre-order,
 * object keys and set elements sorted). The planner scans it like `walk(x, [p, v])`.
 */
export function tg_walk(x: usize): usize {
  if (x == 0) return 0;
  const out = mkArray(0);
  walkInto(out, mkArray(0), x);
  return out;
}

/**
 * The text OPA's print writes for internal.print([s1, s2, ...]) where each operand
 * was collected into a set: "<undefined>" for an empty set, else the elements
 * (strings raw, other values in Rego syntax) joined by ", "; operands joined by " ".
 * Returns a NUL-terminated string address for env.opa_println.
 */
export function tg_print_format(args: usize): usize {
  if (!isArr(args)) return typeError("print", 1, "array", args);
  bBegin();
  const n = colLen(args);
  for (let i = 0; i < n; i++) {
    if (i > 0) bByte(32);
    const s = arrGet(args, i);
    if (!isSet(s) || colLen(s) == 0) { bLit("<undefined>"); continue; }
    const m = colLen(s);
    for (let j = 0; j < m; j++) {
      if (j > 0) { bByte(44); bByte(32); }
      const x = setGet(s, j);
      if (tag(x) == T_STRING) bBytes(strPtr(x), strLen(x));
      else writeRego(x);
    }
  }
  bByte(0);
  return bEnd();
}
