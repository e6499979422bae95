// Type builtins and conversions: is_*, type_name, to_number, numbers.range.
import { alloc } from "../memory";
import {
  tag, mkBool, mkInt, mkFloat, mkArray, mkObject, arrPush, boolVal, strLen, strPtr, numRepr, NULL_CELL,
  T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET, N_FLOAT,
} from "../value";
import { parseNumber, toI64, okInt, isIntegral, numCompare, numAdd, toF64, normalize } from "../number";
import { parseHexFloat, hexStatus, HEX_OK, HEX_RANGE } from "./hex-float";
import { typeError, builtinError, builtinErrorWith, typeName, notInteger } from "../errors";
import { isNum, litString } from "./util";

function isType(v: usize, t: u8): usize {
  if (v == 0) return 0;
  return mkBool(tag(v) == t);
}
export function opa_types_is_number(v: usize): usize { return isType(v, T_NUMBER); }
export function opa_types_is_string(v: usize): usize { return isType(v, T_STRING); }
export function opa_types_is_boolean(v: usize): usize { return isType(v, T_BOOLEAN); }
export function opa_types_is_array(v: usize): usize { return isType(v, T_ARRAY); }
export function opa_types_is_set(v: usize): usize { return isType(v, T_SET); }
export function opa_types_is_object(v: usize): usize { return isType(v, T_OBJECT); }
export function opa_types_is_null(v: usize): usize { return isType(v, T_NULL); }

export function opa_types_name(v: usize): usize {
  if (v == 0) return 0;
  return litString(typeName(v));
}

@inline function isDigit(c: u32): bool { return c - 48 < 10; }

/** to_number: Go strconv.ParseFloat syntax (decimal and hexadecimal forms) for strings. */
export function opa_to_number(v: usize): usize {
  if (v == 0) return 0;
  const t = tag(v);
  if (t == T_NUMBER) return v;
  if (t == T_NULL) return mkInt(0);
  if (t == T_BOOLEAN) return mkInt(boolVal(v) ? 1 : 0);
  if (t != T_STRING) return typeError("to_number", 1, "one of {null, boolean, number, string}", v);
  const p = strPtr(v), n = strLen(v);
  if (namesNonFinite(p, n)) return typeError("to_number", 1, "valid number string", v);
  if (hasHexPrefix(p, n)) {
    const f = parseHexFloat(p, n);
    if (hexStatus == HEX_RANGE) return builtinErrorWith("to_number", "strconv.ParseFloat: parsing \"", p, n, "\": value out of range");
    if (hexStatus != HEX_OK) return builtinErrorWith("to_number", "strconv.ParseFloat: parsing \"", p, n, "\": invalid syntax");
    return normalize(mkFloat(f));
  }
  // normalise into JSON number text: drop '+', leading zeros; "5." / ".5" get a zero
  const out = alloc(n + 3);
  let o = out;
  let i: usize = 0;
  if (i < n && (load<u8>(p) == 43 || load<u8>(p) == 45)) { if (load<u8>(p) == 45) store<u8>(o++, 45); i++; }
  const intStart = i;
  while (i < n && isDigit(load<u8>(p + i))) i++;
  let intDigits = i - intStart;
  let zs = intStart;
  while (zs < i - 1 && load<u8>(p + zs) == 48) zs++;
  if (intDigits == 0) store<u8>(o++, 48);
  else { memory.copy(o, p + zs, i - zs); o += i - zs; }
  let fracDigits: usize = 0;
  if (i < n && load<u8>(p + i) == 46) {
    i++;
    const fs = i;
    while (i < n && isDigit(load<u8>(p + i))) i++;
    fracDigits = i - fs;
    if (fracDigits > 0) { store<u8>(o++, 46); memory.copy(o, p + fs, fracDigits); o += fracDigits; }
  }
  if (intDigits == 0 && fracDigits == 0) return builtinErrorWith("to_number", "strconv.ParseFloat: parsing \"", p, n, "\": invalid syntax");
  if (i < n && (load<u8>(p + i) | 32) == 101) {
    store<u8>(o++, 101);
    i++;
    if (i < n && (load<u8>(p + i) == 43 || load<u8>(p + i) == 45)) { store<u8>(o++, load<u8>(p + i)); i++; }
    const es = i;
    while (i < n && isDigit(load<u8>(p + i))) { store<u8>(o++, load<u8>(p + i)); i++; }
    if (i == es) return builtinErrorWith("to_number", "strconv.ParseFloat: parsing \"", p, n, "\": invalid syntax");
  }
  if (i != n) return builtinErrorWith("to_number", "strconv.ParseFloat: parsing \"", p, n, "\": invalid syntax");
  const r = parseNumber(out, o - out);
  if (r == 0) return builtinErrorWith("to_number", "strconv.ParseFloat: parsing \"", p, n, "\": invalid syntax");
  // Go's ParseFloat refuses what rounds beyond the largest float64 (tiny values round to 0 without error)
  if (!isFinite(toF64(r))) return builtinErrorWith("to_number", "strconv.ParseFloat: parsing \"", p, n, "\": value out of range");
  return r;
}

/** [+-]0x or 0X: Go's hexadecimal float form. */
function hasHexPrefix(p: usize, n: usize): bool {
  let i: usize = 0;
  if (i < n && (load<u8>(p) == 43 || load<u8>(p) == 45)) i++;
  return i + 1 < n && load<u8>(p + i) == 48 && (load<u8>(p + i + 1) | 32) == 120;
}

/** OPA refuses "inf", "infinity" and "nan" (any case) after any run of leading signs, before ParseFloat. */
function namesNonFinite(p: usize, n: usize): bool {
  let i: usize = 0;
  while (i < n && (load<u8>(p + i) == 43 || load<u8>(p + i) == 45)) i++;
  const rest = n - i;
  if (rest == 3) return lowerIs(p + i, "inf") || lowerIs(p + i, "nan");
  return rest == 8 && lowerIs(p + i, "infinity");
}

/** ASCII bytes at p, lowered, equal the lowercase ASCII word w. */
function lowerIs(p: usize, w: string): bool {
  for (let j = 0; j < w.length; j++) {
    const c = <u32>load<u8>(p + <usize>j);
    const l = c - 65 < 26 ? c | 32 : c;
    if (l != <u32>w.charCodeAt(j)) return false;
  }
  return true;
}

export function opa_numbers_range(a: usize, b: usize): usize {
  // OPA's BigIntOperand: each operand in turn, "integer" as the wanted type
  if (!isNum(a)) return typeError("numbers.range", 1, "integer", a);
  if (numRepr(a) == N_FLOAT && !isIntegral(a)) return notInteger("numbers.range", 1);
  if (!isNum(b)) return typeError("numbers.range", 2, "integer", b);
  if (numRepr(b) == N_FLOAT && !isIntegral(b)) return notInteger("numbers.range", 2);
  const x = toI64(a);
  if (!okInt) return builtinError("numbers.range", "operand 1 out of range");
  const y = toI64(b);
  if (!okInt) return builtinError("numbers.range", "operand 2 out of range");
  const step: i64 = x <= y ? 1 : -1;
  const count = (x <= y ? y - x : x - y) + 1;
  if (count > 100000000) return builtinError("numbers.range", "range too large");
  const r = mkArray(<i32>count);
  for (let v = x; ; v += step) {
    arrPush(r, mkInt(v));
    if (v == y) break;
  }
  return r;
}


/** opa.runtime(): OPA returns {} when the evaluation has no runtime information, as here. */
export function tg_opa_runtime(): usize {
  return mkObject(0);
}
