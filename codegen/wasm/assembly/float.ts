// Exact conversions between decimal text and f64: correctly rounded parsing and
// shortest round-trip printing (Burger & Dybvig free-format digits), formatted as
// ECMAScript / Go encoding/json print numbers.
import { bnSet, bnCopy, bnMulSmall, bnMulPow5, bnMulPow10, bnShl, bnCmp, bnAdd, bnSub, bnDivSmall, bnIsZero, LIMBS } from "./bignum";
import { bByte } from "./memory";

const BN_BYTES = 4 + (LIMBS << 2);
const R = memory.data(BN_BYTES, 8);
const S = memory.data(BN_BYTES, 8);
const MP = memory.data(BN_BYTES, 8);
const MM = memory.data(BN_BYTES, 8);
const T = memory.data(BN_BYTES, 8);
const DIGITS = memory.data(800);

const MAX_DIGITS: i32 = 780;

// ---- parsing: digits d[0..n) and exponent e10 (value = digits * 10^e10)

/** Decomposes a finite positive double into mantissa and binary exponent (value = m * 2^e). */
let dM: u64 = 0;
let dE: i32 = 0;
function decompose(x: f64): void {
  const bits = reinterpret<u64>(x);
  const be = <i32>((bits >> 52) & 0x7ff);
  const frac = bits & 0xfffffffffffff;
  if (be == 0) { dM = frac; dE = -1074; }
  else { dM = frac | 0x10000000000000; dE = be - 1075; }
}

/** Loads the decimal digits into R as a big integer. */
function loadDigits(p: usize, n: i32): void {
  bnSet(R, 0);
  let i = 0;
  while (i < n) {
    let chunk: u32 = 0;
    let mul: u32 = 1;
    let k = 0;
    while (k < 9 && i < n) { chunk = chunk * 10 + <u32>(load<u8>(p + i) - 48); mul *= 10; k++; i++; }
    bnMulSmall(R, mul, chunk);
  }
}

/**
 * Compares digits*10^e10 (in R, scaled) with the halfway point num * 2^e2 (exact).
 * Returns -1, 0, 1.
 */
function cmpHalfway(p: usize, n: i32, e10: i32, num: u64, e2: i32): i32 {
  loadDigits(p, n);
  bnSet(S, num);
  let lhs2 = 0, rhs2 = e2;
  if (e10 >= 0) { bnMulPow5(R, e10); lhs2 = e10; }
  else { bnMulPow5(S, -e10); lhs2 = e10; }
  const k = lhs2 < rhs2 ? lhs2 : rhs2;
  bnShl(R, lhs2 - k);
  bnShl(S, rhs2 - k);
  return bnCmp(R, S);
}

function nextUp(x: f64): f64 { return reinterpret<f64>(reinterpret<u64>(x) + 1); }
function nextDown(x: f64): f64 { return reinterpret<f64>(reinterpret<u64>(x) - 1); }

/** Correctly rounded f64 for digits (no sign, leading zeros stripped) * 10^e10, from an approximation. */
export function refine(p: usize, n: i32, e10: i32, approx: f64): f64 {
  if (n > MAX_DIGITS) { e10 += n - MAX_DIGITS; n = MAX_DIGITS; }
  let x = approx;
  if (!isFinite(x)) x = 1.7976931348623157e308;
  if (x == 0) x = 5e-324;
  for (let iter = 0; iter < 64; iter++) {
    decompose(x);
    // upper halfway: (2m + 1) * 2^(e-1)
    const up = cmpHalfway(p, n, e10, (dM << 1) + 1, dE - 1);
    if (up > 0 || (up == 0 && (dM & 1) == 1)) {
      if (x == 1.7976931348623157e308) return up > 0 ? Infinity : x;
      x = nextUp(x);
      continue;
    }
    // lower halfway: (2m - 1) * 2^(e-1), or a quarter ulp below a power of two
    let lo: i32;
    if (dM == 0x10000000000000 && dE > -1074) lo = cmpHalfway(p, n, e10, (dM << 2) - 1, dE - 2);
    else lo = cmpHalfway(p, n, e10, (dM << 1) - 1, dE - 1);
    if (lo < 0 || (lo == 0 && (dM & 1) == 1)) {
      if (x == 5e-324) return lo < 0 ? 0 : x;
      x = nextDown(x);
      continue;
    }
    return x;
  }
  return x;
}

// ---- printing

export let nDigits = 0;
export let decExp = 0; // value = 0.d1d2... * 10^decExp
/** Digits written by shortest() / exactDigits(), most significant first. */
export const DIGIT_BUF = DIGITS;

/** Exact decimal expansion of x (finite, > 0) into DIGITS/nDigits/decExp, trailing zeros trimmed. */
export function exactDigits(x: f64): void {
  decompose(x);
  bnSet(R, dM);
  let point = 0;
  if (dE >= 0) bnShl(R, dE);
  else { bnMulPow5(R, -dE); point = dE; } // value = R * 10^dE
  // R to decimal, least significant chunk first, into the tail of T's buffer
  const tmp = T + 4;
  let n = 0;
  while (!bnIsZero(R)) {
    let chunk = bnDivSmall(R, 1000000000);
    for (let k = 0; k < 9; k++) { store<u8>(tmp + n++, <u8>(48 + chunk % 10)); chunk /= 10; }
  }
  while (n > 1 && load<u8>(tmp + n - 1) == 48) n--; // leading zeros (stored reversed)
  let lead = 0;
  while (lead < n - 1 && load<u8>(tmp + lead) == 48) lead++; // trailing zeros of the number
  nDigits = 0;
  for (let i = n - 1; i >= lead; i--) store<u8>(DIGITS + nDigits++, load<u8>(tmp + i));
  decExp = n + point; // position of the decimal point from the first digit
}

/** Rounds DIGITS to `keep` digits (half to even on the exact expansion); keep may be <= 0. */
export function roundDigits(keep: i32): void {
  if (keep >= nDigits) return;
  if (keep < 0) { nDigits = 0; return; }
  const next = load<u8>(DIGITS + keep) - 48;
  let up = next > 5;
  if (next == 5) {
    let rest = false;
    for (let i = keep + 1; i < nDigits; i++) if (load<u8>(DIGITS + i) != 48) { rest = true; break; }
    up = rest || (keep > 0 && ((load<u8>(DIGITS + keep - 1) - 48) & 1) == 1);
  }
  nDigits = keep;
  if (up) {
    let i = keep - 1;
    while (i >= 0 && load<u8>(DIGITS + i) == 57) { store<u8>(DIGITS + i, 48); i--; }
    if (i >= 0) store<u8>(DIGITS + i, load<u8>(DIGITS + i) + 1);
    else {
      // 999 -> 1000: shift right by one
      memory.copy(DIGITS + 1, DIGITS, <usize>nDigits);
      store<u8>(DIGITS, 49);
      nDigits++;
      decExp++;
    }
  }
  while (nDigits > 0 && load<u8>(DIGITS + nDigits - 1) == 48) nDigits--;
}

/** Zero: no digits, decimal point after the first position. */
export function zeroDigits(): void {
  nDigits = 0;
  decExp = 1;
}

/** Shortest digits of x (finite, > 0) into DIGITS/nDigits/decExp. */
export function shortestDigits(x: f64): void {
  shortest(x);
}

/** Shortest digits that read back as x (x finite, > 0), closest when several. */
function shortest(x: f64): void {
  decompose(x);
  const f = dM;
  const e = dE;
  const even = (f & 1) == 0;
  const boundaryLow = f == 0x10000000000000 && e > -1074; // predecessor is closer
  if (e >= 0) {
    bnSet(R, f); bnShl(R, e + (boundaryLow ? 2 : 1));
    bnSet(S, boundaryLow ? 4 : 2);
    bnSet(MP, 1); bnShl(MP, boundaryLow ? e + 1 : e);
    bnSet(MM, 1); bnShl(MM, e);
  } else {
    bnSet(R, f); bnShl(R, boundaryLow ? 2 : 1);
    bnSet(S, 1); bnShl(S, boundaryLow ? 2 - e : 1 - e);
    bnSet(MP, boundaryLow ? 2 : 1);
    bnSet(MM, 1);
  }
  // estimate k = ceil(log10(x)) then fix up
  let k = <i32>Math.ceil(Math.log10(x) - 1e-10);
  if (k >= 0) bnMulPow10(S, k);
  else { bnMulPow10(R, -k); bnMulPow10(MP, -k); bnMulPow10(MM, -k); }
  // fixup: ensure r + m+ < s (or <= when odd) so the first digit is nonzero
  bnAdd(T, R, MP);
  let c = bnCmp(T, S);
  if (even ? c >= 0 : c > 0) {
    k++;
    bnMulSmall(S, 10, 0);
  }
  // the estimate may also be one too high: then 10 * (r + m+) stays below s
  while (true) {
    bnAdd(T, R, MP);
    bnMulSmall(T, 10, 0);
    c = bnCmp(T, S);
    if (even ? c >= 0 : c > 0) break;
    k--;
    bnMulSmall(R, 10, 0); bnMulSmall(MP, 10, 0); bnMulSmall(MM, 10, 0);
  }
  decExp = k;
  nDigits = 0;
  while (nDigits < 800) {
    bnMulSmall(R, 10, 0); bnMulSmall(MP, 10, 0); bnMulSmall(MM, 10, 0);
    let d: u32 = 0;
    while (bnCmp(R, S) >= 0) { bnSub(R, S); d++; }
    c = bnCmp(R, MM);
    const tc1 = even ? c <= 0 : c < 0;
    bnAdd(T, R, MP);
    c = bnCmp(T, S);
    const tc2 = even ? c >= 0 : c > 0;
    if (!tc1 && !tc2) { store<u8>(DIGITS + nDigits++, <u8>(48 + d)); continue; }
    if (tc1 && tc2) {
      bnCopy(T, R); bnShl(T, 1);
      c = bnCmp(T, S);
      if (c > 0 || (c == 0 && (d & 1) == 1)) d++;
    } else if (tc2) d++;
    store<u8>(DIGITS + nDigits++, <u8>(48 + d));
    break;
  }
}

/** Appends x in ECMAScript Number::toString form (which Go's encoding/json also uses). */
export function writeShortest(x: f64): void {
  if (x == 0) { bByte(48); return; }
  if (x < 0) { bByte(45); x = -x; }
  shortest(x);
  const n = nDigits;
  const k = decExp;
  if (n <= k && k <= 21) {
    for (let i = 0; i < n; i++) bByte(load<u8>(DIGITS + i));
    for (let i = n; i < k; i++) bByte(48);
  } else if (0 < k && k <= 21) {
    for (let i = 0; i < k; i++) bByte(load<u8>(DIGITS + i));
    bByte(46);
    for (let i = k; i < n; i++) bByte(load<u8>(DIGITS + i));
  } else if (-6 < k && k <= 0) {
    bByte(48); bByte(46);
    for (let i = k; i < 0; i++) bByte(48);
    for (let i = 0; i < n; i++) bByte(load<u8>(DIGITS + i));
  } else {
    bByte(load<u8>(DIGITS));
    if (n > 1) { bByte(46); for (let i = 1; i < n; i++) bByte(load<u8>(DIGITS + i)); }
    bByte(101);
    let e = k - 1;
    bByte(e < 0 ? 45 : 43);
    if (e < 0) e = -e;
    if (e >= 100) bByte(48 + e / 100);
    if (e >= 10) bByte(48 + (e / 10) % 10);
    bByte(48 + e % 10);
  }
}

