// String builtins (Go strings package semantics on UTF-8 bytes; runes where OPA counts runes).
import { alloc } from "../memory";
import {
  mkString, mkArray, mkInt, mkBool, strLen, strPtr, colLen, arrGet, arrPush, objKey, objVal, numRepr, bigPtr, bigLen,
  N_BIG,
} from "../value";
import { toI64, okInt, toF64 } from "../number";
import { putUtf8 } from "../json-parse";
import { simpleCase } from "./case-map";
import { typeError, typeErrorMsg, typeErrorContaining, builtinError, notInteger } from "../errors";
import {
  isNum, isStr, isArr, isSet, isObj, runeWidth, runeCount, runeOffset, decodeRune, decodedLen, indexOfBytes, copyString,
} from "./util";

export function opa_strings_concat(delim: usize, coll: usize): usize {
  if (!isStr(delim)) return typeError("concat", 1, "string", delim);
  if (!isArr(coll) && !isSet(coll)) return typeError("concat", 2, "one of {array, set}", coll);
  const n = colLen(coll);
  const dn = strLen(delim);
  let total: usize = 0;
  for (let i = 0; i < n; i++) {
    const s = arrGet(coll, i);
    if (!isStr(s)) return typeErrorContaining("concat", 2, isSet(coll) ? "set of strings" : "array of strings", coll, s);
    total += strLen(s);
  }
  if (n > 1) total += dn * <usize>(n - 1);
  const out = alloc(total);
  let o = out;
  for (let i = 0; i < n; i++) {
    if (i > 0) { memory.copy(o, strPtr(delim), dn); o += dn; }
    const s = arrGet(coll, i);
    memory.copy(o, strPtr(s), strLen(s));
    o += strLen(s);
  }
  return mkString(out, total);
}

function twoStrings(name: string, a: usize, b: usize): bool {
  if (!isStr(a)) { typeError(name, 1, "string", a); return false; }
  if (!isStr(b)) { typeError(name, 2, "string", b); return false; }
  return true;
}

export function opa_strings_contains(s: usize, sub: usize): usize {
  if (!twoStrings("contains", s, sub)) return 0;
  return mkBool(indexOfBytes(strPtr(s), strLen(s), strPtr(sub), strLen(sub), 0) >= 0);
}

export function opa_strings_startswith(s: usize, pre: usize): usize {
  if (!twoStrings("startswith", s, pre)) return 0;
  const n = strLen(pre);
  return mkBool(n <= strLen(s) && memory.compare(strPtr(s), strPtr(pre), n) == 0);
}

export function opa_strings_endswith(s: usize, suf: usize): usize {
  if (!twoStrings("endswith", s, suf)) return 0;
  const n = strLen(suf), m = strLen(s);
  return mkBool(n <= m && memory.compare(strPtr(s) + m - n, strPtr(suf), n) == 0);
}

function changeCase(s: usize, upper: bool): usize {
  const p = strPtr(s), n = strLen(s);
  const out = alloc(n + (n >> 1) + 4); // a mapping can turn 2 UTF-8 bytes into 3 (U+0250 -> U+2C6F)
  let o = out;
  let i: usize = 0;
  while (i < n) {
    const b = <u32>load<u8>(p + i);
    if (b < 128) { store<u8>(o++, <u8>simpleCase(b, upper)); i++; continue; }
    const cp = decodeRune(p + i, n - i);
    const len = decodedLen;
    const m = simpleCase(cp, upper);
    if (m == cp || len == 1) { memory.copy(o, p + i, len); o += len; }
    else o = putUtf8(o, m);
    i += len;
  }
  return mkString(out, o - out);
}

export function opa_strings_lower(s: usize): usize {
  if (!isStr(s)) return typeError("lower", 1, "string", s);
  return changeCase(s, false);
}

export function opa_strings_upper(s: usize): usize {
  if (!isStr(s)) return typeError("upper", 1, "string", s);
  return changeCase(s, true);
}

export function opa_strings_split(s: usize, d: usize): usize {
  if (!twoStrings("split", s, d)) return 0;
  const p = strPtr(s), n = strLen(s), dp = strPtr(d), dn = strLen(d);
  const r = mkArray(0);
  if (dn == 0) {
    let i: usize = 0;
    while (i < n) { const l = runeWidth(p + i, n - i); arrPush(r, mkString(p + i, l)); i += l; }
    return r;
  }
  let start: usize = 0;
  while (true) {
    const at = indexOfBytes(p, n, dp, dn, start);
    if (at < 0) break;
    arrPush(r, mkString(p + start, <usize>at - start));
    start = <usize>at + dn;
  }
  arrPush(r, mkString(p + start, n - start));
  return r;
}

/** strings.split_n: the first n parts of split(s, d) (n > 0), the last -n (n < 0), none (n = 0). */
export function tg_strings_split_n(s: usize, d: usize, count: usize): usize {
  if (!twoStrings("strings.split_n", s, d)) return 0;
  if (!isNum(count)) return typeError("strings.split_n", 3, "number", count);
  const k = toI64(count);
  if (!okInt) return typeError("strings.split_n", 3, "integer", count);
  const parts = opa_strings_split(s, d);
  const n = <i64>colLen(parts);
  const take = k < 0 ? (-k < n ? -k : n) : (k < n ? k : n);
  const from = k < 0 ? n - take : 0;
  const r = mkArray(<i32>take);
  for (let i: i64 = 0; i < take; i++) arrPush(r, arrGet(parts, <i32>(from + i)));
  return r;
}

/** Go strings.Replace(s, old, new, limit) (limit < 0: all). */
function replaceN(s: usize, old: usize, nw: usize, limit: i64): usize {
  const p = strPtr(s), n = strLen(s), op = strPtr(old), on = strLen(old), np = strPtr(nw), nn = strLen(nw);
  // count matches first to size the output
  let count: i64 = 0;
  if (on == 0) count = <i64>runeCount(p, n) + 1;
  else {
    let at = indexOfBytes(p, n, op, on, 0);
    while (at >= 0) { count++; at = indexOfBytes(p, n, op, on, <usize>at + on); }
  }
  if (limit >= 0 && count > limit) count = limit;
  if (count == 0) return s;
  const total = n + <usize>count * nn - <usize>count * on;
  const out = alloc(total);
  let o = out;
  let i: usize = 0;
  for (let k: i64 = 0; k < count; k++) {
    let at: usize;
    if (on == 0) at = k == 0 ? 0 : i + runeWidth(p + i, n - i);
    else at = <usize>indexOfBytes(p, n, op, on, i);
    memory.copy(o, p + i, at - i); o += at - i;
    memory.copy(o, np, nn); o += nn;
    i = at + on;
  }
  memory.copy(o, p + i, n - i);
  o += n - i;
  return mkString(out, o - out);
}

export function opa_strings_replace(s: usize, old: usize, nw: usize): usize {
  if (!isStr(s)) return typeError("replace", 1, "string", s);
  if (!isStr(old)) return typeError("replace", 2, "string", old);
  if (!isStr(nw)) return typeError("replace", 3, "string", nw);
  return replaceN(s, old, nw, -1);
}

/** Go strings.NewReplacer over the object's pairs (key order): leftmost match, earliest key wins. */
export function opa_strings_replace_n(patterns: usize, s: usize): usize {
  if (!isObj(patterns)) return typeError("strings.replace_n", 1, "object", patterns);
  if (!isStr(s)) return typeError("strings.replace_n", 2, "string", s);
  const k = colLen(patterns);
  for (let j = 0; j < k; j++) {
    if (!isStr(objKey(patterns, j))) return typeErrorMsg("strings.replace_n", "operand 1 non-string key found in pattern object");
    if (!isStr(objVal(patterns, j))) return typeErrorMsg("strings.replace_n", "operand 1 non-string value found in pattern object");
  }
  const p = strPtr(s), n = strLen(s);
  // worst case growth is bounded by the longest replacement per input byte
  let maxNew: usize = 0;
  for (let j = 0; j < k; j++) { const l = strLen(objVal(patterns, j)); if (l > maxNew) maxNew = l; }
  const out = alloc(n * (maxNew > 1 ? maxNew : 1) + maxNew + 1);
  let o = out;
  let i: usize = 0;
  while (i <= n) {
    let hit = -1;
    for (let j = 0; j < k; j++) {
      const key = objKey(patterns, j);
      const kn = strLen(key);
      if (kn == 0) continue;
      if (i + kn <= n && memory.compare(p + i, strPtr(key), kn) == 0) { hit = j; break; }
    }
    if (hit >= 0) {
      const v = objVal(patterns, hit);
      memory.copy(o, strPtr(v), strLen(v)); o += strLen(v);
      i += strLen(objKey(patterns, hit));
      continue;
    }
    if (i == n) break;
    store<u8>(o++, load<u8>(p + i));
    i++;
  }
  return mkString(out, o - out);
}

export function opa_strings_substring(s: usize, start: usize, len: usize): usize {
  if (!isStr(s)) return typeError("substring", 1, "string", s);
  if (!isNum(start)) return typeError("substring", 2, "number", start);
  const st = toI64(start);
  if (!okInt) return notInteger("substring", 2);
  if (!isNum(len)) return typeError("substring", 3, "number", len);
  const ln = toI64(len);
  if (!okInt) return notInteger("substring", 3);
  if (st < 0) return builtinError("substring", "negative offset");
  const p = strPtr(s), n = strLen(s);
  const runes = <i64>runeCount(p, n);
  if (st >= runes) return mkString(p, 0);
  const a = runeOffset(p, n, <i32>st);
  if (ln < 0 || st + ln >= runes) return mkString(p + a, n - a);
  const b = runeOffset(p, n, <i32>(st + ln));
  return mkString(p + a, b - a);
}

export function opa_strings_indexof(s: usize, sub: usize): usize {
  if (!twoStrings("indexof", s, sub)) return 0;
  if (strLen(sub) == 0) return builtinError("indexof", "empty search character");
  const at = indexOfBytes(strPtr(s), strLen(s), strPtr(sub), strLen(sub), 0);
  if (at < 0) return mkInt(-1);
  return mkInt(runeCount(strPtr(s), <usize>at));
}

export function opa_strings_reverse(s: usize): usize {
  if (!isStr(s)) return typeError("strings.reverse", 1, "string", s);
  const p = strPtr(s), n = strLen(s);
  const out = alloc(n);
  let i: usize = 0;
  while (i < n) {
    const l = runeWidth(p + i, n - i);
    memory.copy(out + n - i - l, p + i, l);
    i += l;
  }
  return mkString(out, n);
}

const DIGITS = "0123456789abcdef";

export function opa_strings_format_int(num: usize, base: usize): usize {
  if (!isNum(num)) return typeError("format_int", 1, "number", num);
  if (!isNum(base)) return typeError("format_int", 2, "number", base);
  const b = toI64(base);
  if (!okInt || (b != 2 && b != 8 && b != 10 && b != 16)) return typeErrorMsg("format_int", "operand 2 must be one of {2, 8, 10, 16}");
  if (numRepr(num) == N_BIG) {
    if (b == 10) return copyString(bigPtr(num), bigLen(num));
  }
  // fractions truncate toward zero, as OPA: format_int(-15.9, 16) == "-f"
  let v = toI64(num);
  if (!okInt) v = <i64>Math.trunc(toF64(num));
  const neg = v < 0;
  let u: u64 = neg ? <u64>(0 - v) : <u64>v;
  const buf = alloc(66);
  let p: usize = 66;
  if (u == 0) { p--; store<u8>(buf + p, 48); }
  const ub = <u64>b;
  const dp = changetype<usize>(DIGITS);
  while (u != 0) { p--; store<u8>(buf + p, <u8>load<u16>(dp + (<usize>(u % ub) << 1))); u /= ub; }
  if (neg) { p--; store<u8>(buf + p, 45); }
  return mkString(buf + p, 66 - p);
}

/** Checks a string / array / set of strings operand; false after raising (or when lenient). */
function stringsOperand(name: string, i: i32, v: usize): bool {
  if (isStr(v)) return true;
  if (!isArr(v) && !isSet(v)) { typeError(name, i, "one of {string, set, array}", v); return false; }
  const n = colLen(v);
  for (let k = 0; k < n; k++) {
    const x = arrGet(v, k);
    if (!isStr(x)) { typeErrorContaining(name, i, isSet(v) ? "set of strings" : "array of strings", v, x); return false; }
  }
  return true;
}

@inline function countOf(v: usize): i32 { return isStr(v) ? 1 : colLen(v); }
@inline function itemOf(v: usize, k: i32): usize { return isStr(v) ? v : arrGet(v, k); }

function anyAffixMatch(name: string, search: usize, base: usize, suffix: bool): usize {
  if (!stringsOperand(name, 1, search) || !stringsOperand(name, 2, base)) return 0;
  const ns = countOf(search), nb = countOf(base);
  for (let i = 0; i < ns; i++) {
    const s = itemOf(search, i);
    const sp = strPtr(s), sn = strLen(s);
    for (let j = 0; j < nb; j++) {
      const b = itemOf(base, j);
      const bn = strLen(b);
      if (bn > sn) continue;
      if (memory.compare(suffix ? sp + sn - bn : sp, strPtr(b), bn) == 0) return mkBool(true);
    }
  }
  return mkBool(false);
}

export function tg_strings_any_prefix_match(search: usize, base: usize): usize {
  return anyAffixMatch("strings.any_prefix_match", search, base, false);
}

export function tg_strings_any_suffix_match(search: usize, base: usize): usize {
  return anyAffixMatch("strings.any_suffix_match", search, base, true);
}
