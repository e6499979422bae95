// Numbers: parsing literal/JSON text, printing as OPA (Go) does, comparison and
// the exact-integer arithmetic the builtins share.
import { refine, writeShortest } from "./float";
import { alloc, bByte, bBytes } from "./memory";
import { mkInt, mkFloat, numRepr, intVal, floatVal, bigPtr, bigLen, N_INT, N_FLOAT, N_BIG } from "./value";
import { fromParts, loadParts, partsCmp, bigAdd, bigSub, bigMul, bigToF64 } from "./bigint";

const POW10 = memory.data<f64>([1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]);

@inline function isDigit(c: u32): bool {
  return c - 48 < 10;
}

/** Length of the JSON number at p (at most n bytes), 0 if there is none. */
export function scanNumber(p: usize, n: usize): usize {
  let i: usize = 0;
  if (i < n && load<u8>(p) == 45) i++;
  if (i >= n) return 0;
  let c = <u32>load<u8>(p + i);
  if (c == 48) {
    i++;
  } else if (c - 49 < 9) {
    while (i < n && isDigit(load<u8>(p + i))) i++;
  } else return 0;
  if (i < n && load<u8>(p + i) == 46) {
    i++;
    const s = i;
    while (i < n && isDigit(load<u8>(p + i))) i++;
    if (i == s) return 0;
  }
  if (i < n && (load<u8>(p + i) | 32) == 101) {
    i++;
    if (i < n && (load<u8>(p + i) == 43 || load<u8>(p + i) == 45)) i++;
    const s = i;
    while (i < n && isDigit(load<u8>(p + i))) i++;
    if (i == s) return 0;
  }
  return i;
}

/** Number cell for exactly the JSON number text [p, p+n); 0 if it is not one. */
export function parseNumber(p: usize, n: usize): usize {
  if (n == 0 || scanNumber(p, n) != n) return 0;
  let neg = load<u8>(p) == 45;
  let i: usize = neg ? 1 : 0;
  let integral = true;
  for (let j = i; j < n; j++) {
    const c = load<u8>(p + j);
    if (c == 46 || c == 101 || c == 69) { integral = false; break; }
  }
  if (integral) {
    if (n - i <= 18) {
      let v: i64 = 0;
      for (; i < n; i++) v = v * 10 + <i64>(load<u8>(p + i) - 48);
      return mkInt(neg ? -v : v);
    }
    return fromParts(neg, p + i, n - i);
  }
  return mkFloat(parseFloatText(p, n));
}

/** f64 of a valid JSON number text, correctly rounded: exact fast path, else approximate + refine. */
function parseFloatText(p: usize, n: usize): f64 {
  let i: usize = 0;
  const neg = load<u8>(p) == 45;
  if (neg) i++;
  let m: u64 = 0;
  let digits = 0;
  let e10: i32 = 0;
  let exact = true;
  for (; i < n; i++) {
    const c = <u32>load<u8>(p + i);
    if (c == 46) continue;
    if ((c | 32) == 101) break;
    if (digits < 19) {
      if (m != 0 || c != 48) digits++;
      m = m * 10 + <u64>(c - 48);
    } else {
      exact = false;
      break;
    }
  }
  if (exact) {
    // decimal exponent: minus fraction digits, plus explicit exponent
    let frac: i32 = 0;
    let seenDot = false;
    let j: usize = neg ? 1 : 0;
    for (; j < n; j++) {
      const c = <u32>load<u8>(p + j);
      if ((c | 32) == 101) break;
      if (c == 46) { seenDot = true; continue; }
      if (seenDot) frac++;
    }
    let ex: i32 = 0;
    if (j < n) {
      j++;
      let eneg = false;
      if (load<u8>(p + j) == 45) { eneg = true; j++; } else if (load<u8>(p + j) == 43) j++;
      for (; j < n; j++) { ex = ex * 10 + <i32>(load<u8>(p + j) - 48); if (ex > 100000) break; }
      if (eneg) ex = -ex;
    }
    e10 = ex - frac;
    if (m <= 9007199254740991 && e10 >= -22 && e10 <= 22) {
      let f = <f64>m;
      f = e10 >= 0 ? f * load<f64>(POW10 + (<usize>e10 << 3)) : f / load<f64>(POW10 + (<usize>(-e10) << 3));
      return neg ? -f : f;
    }
  }
  // Slow path: exact digits, an approximation within a few ulps, then an exact
  // correction against the decimal value (float.ts).
  // digits without sign, dot and leading zeros; e10 adjusts for the fraction
  const dbuf = alloc(n);
  let nd = 0;
  let fracDigits = 0;
  let seenDot = false;
  let j: usize = neg ? 1 : 0;
  for (; j < n; j++) {
    const c = <u32>load<u8>(p + j);
    if ((c | 32) == 101) break;
    if (c == 46) { seenDot = true; continue; }
    if (seenDot) fracDigits++;
    if (nd == 0 && c == 48) continue;
    store<u8>(dbuf + nd++, <u8>c);
  }
  let ex: i32 = 0;
  if (j < n) {
    j++;
    let eneg = false;
    if (load<u8>(p + j) == 45) { eneg = true; j++; } else if (load<u8>(p + j) == 43) j++;
    for (; j < n; j++) { if (ex < 100000) ex = ex * 10 + <i32>(load<u8>(p + j) - 48); }
    if (eneg) ex = -ex;
  }
  if (nd == 0) return neg ? -0.0 : 0.0;
  if (ex > 100000 - 1) return neg ? -Infinity : Infinity;
  if (ex < -99999) return neg ? -0.0 : 0.0;
  const de = ex - fracDigits;
  const f = refine(dbuf, nd, de, approximate(dbuf, nd, de));
  return neg ? -f : f;
}

/** digits * 10^e10 within a few ulps: 19 leading digits scaled by exact powers of ten. */
function approximate(d: usize, n: i32, e10: i32): f64 {
  let m: u64 = 0;
  const take = n < 19 ? n : 19;
  for (let i = 0; i < take; i++) m = m * 10 + <u64>(load<u8>(d + i) - 48);
  let e = e10 + (n - take);
  let x = <f64>m;
  while (e > 22 && x < 1e308) { x *= 1e22; e -= 22; }
  if (e > 0) x *= load<f64>(POW10 + (<usize>(e > 22 ? 22 : e) << 3));
  while (e < -22 && x > 0) {
    // keep the intermediate normal: divide in steps, scaling up below 1e-280
    x /= 1e22;
    e += 22;
  }
  // (x reached 0 with e still below -22 for a tiny value: the table has 23 entries)
  if (e < 0) x /= load<f64>(POW10 + (<usize>(e < -22 ? 22 : -e) << 3));
  return x;
}

/** True when the number cell holds an integral value. */
export function isIntegral(v: usize): bool {
  const r = numRepr(v);
  if (r != N_FLOAT) return true;
  const f = floatVal(v);
  return f == Math.floor(f) && Math.abs(f) < 1.8446744073709552e19;
}

/** f64 value of any number cell. */
export function toF64(v: usize): f64 {
  const r = numRepr(v);
  if (r == N_INT) return <f64>intVal(v);
  if (r == N_FLOAT) return floatVal(v);
  return bigToF64(v);
}

/** If the number is an integer within i64, sets okInt and returns it. */
export let okInt: bool = false;
export function toI64(v: usize): i64 {
  const r = numRepr(v);
  okInt = true;
  if (r == N_INT) return intVal(v);
  if (r == N_FLOAT) {
    const f = floatVal(v);
    if (f == Math.floor(f) && Math.abs(f) <= 9.2e18) return <i64>f;
  }
  okInt = false;
  return 0;
}

/** Integral float -> int cell (when exact), else the cell itself. */
export function normalize(v: usize): usize {
  if (numRepr(v) != N_FLOAT) return v;
  const f = floatVal(v);
  if (f == Math.floor(f) && Math.abs(f) < 9007199254740992) return mkInt(<i64>f);
  return v;
}

export function numCompare(a: usize, b: usize): i32 {
  const ra = numRepr(a);
  const rb = numRepr(b);
  if (ra == N_INT && rb == N_INT) {
    const x = intVal(a), y = intVal(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (ra == N_FLOAT || rb == N_FLOAT) {
    const x = toF64(a), y = toF64(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  loadParts(a, false);
  loadParts(b, true);
  return partsCmp();
}

// ---- arithmetic shared by builtins: int op int stays exact (promoting to big)
export function numAdd(a: usize, b: usize): usize {
  const ra = numRepr(a), rb = numRepr(b);
  if (ra == N_INT && rb == N_INT) {
    const x = intVal(a), y = intVal(b);
    const r = x + y;
    if (((x ^ r) & (y ^ r)) >= 0) return mkInt(r);
    return bigAdd(a, b);
  }
  if (ra == N_FLOAT || rb == N_FLOAT) return mkFloat(toF64(a) + toF64(b));
  return bigAdd(a, b);
}

export function numSub(a: usize, b: usize): usize {
  const ra = numRepr(a), rb = numRepr(b);
  if (ra == N_INT && rb == N_INT) {
    const x = intVal(a), y = intVal(b);
    const r = x - y;
    if (((x ^ y) & (x ^ r)) >= 0) return mkInt(r);
    return bigSub(a, b);
  }
  if (ra == N_FLOAT || rb == N_FLOAT) return mkFloat(toF64(a) - toF64(b));
  return bigSub(a, b);
}

export function numMul(a: usize, b: usize): usize {
  const ra = numRepr(a), rb = numRepr(b);
  if (ra == N_INT && rb == N_INT) {
    const x = intVal(a), y = intVal(b);
    if (x == 0 || y == 0) return mkInt(0);
    const r = x * y;
    if (r / y == x && !(x == -1 && y == i64.MIN_VALUE) && !(y == -1 && x == i64.MIN_VALUE)) return mkInt(r);
    return bigMul(a, b);
  }
  if (ra == N_FLOAT || rb == N_FLOAT) return normalize(mkFloat(toF64(a) * toF64(b)));
  return bigMul(a, b);
}

// ---- printing
const I64_BUF = memory.data(24);

/** Appends the decimal text of an i64 to the builder. */
export function writeI64(v: i64): void {
  let u: u64 = v < 0 ? <u64>(0 - v) : <u64>v;
  if (v < 0) bByte(45);
  const tmp = I64_BUF;
  let p: usize = 24;
  if (u == 0) { p--; store<u8>(tmp + p, 48); }
  while (u != 0) { p--; store<u8>(tmp + p, <u8>(48 + <u32>(u % 10))); u /= 10; }
  bBytes(tmp + p, 24 - p);
}

/** Appends a float as Go's encoding/json prints float64 (shortest round-trip, ES format). */
export function writeF64(f: f64): void {
  if (f == Math.floor(f) && Math.abs(f) < 9007199254740992) { writeI64(<i64>f); return; }
  if (!isFinite(f)) {
    // Not representable in JSON; OPA cannot produce it either. Print null.
    bByte(110); bByte(117); bByte(108); bByte(108);
    return;
  }
  writeShortest(f);
}

export function writeNumber(v: usize): void {
  const r = numRepr(v);
  if (r == N_INT) writeI64(intVal(v));
  else if (r == N_FLOAT) writeF64(floatVal(v));
  else bBytes(bigPtr(v), bigLen(v));
}

