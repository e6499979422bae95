// Exact integers beyond i64 as decimal digit strings. Only what Rego needs:
// compare, +, -, * and conversion; results that fit i64 become ints again.
import { alloc } from "./memory";
import { mkInt, mkBig, numRepr, intVal, bigPtr, bigLen, N_INT } from "./value";

// Operand "parts": sign and magnitude digits (no sign character, no leading zeros).
export let aNeg: bool = false;
export let aPtr: usize = 0;
export let aLen: usize = 0;
export let bNeg: bool = false;
export let bPtr: usize = 0;
export let bLen: usize = 0;

/** Writes |i| as decimal digits into fresh memory; sets the given parts. */
function intDigits(i: i64, second: bool): void {
  const neg = i < 0;
  let u: u64 = neg ? <u64>(0 - i) : <u64>i; // 0 - MIN wraps to MIN, whose u64 is 2^63
  const buf = alloc(20);
  let p: usize = 20;
  if (u == 0) { p--; store<u8>(buf + p, 48); }
  while (u != 0) { p--; store<u8>(buf + p, <u8>(48 + <u32>(u % 10))); u /= 10; }
  if (second) { bNeg = neg; bPtr = buf + p; bLen = 20 - p; }
  else { aNeg = neg; aPtr = buf + p; aLen = 20 - p; }
}

/** Loads number cell `v` (int or big) into parts a or b. */
export function loadParts(v: usize, second: bool): void {
  if (numRepr(v) == N_INT) { intDigits(intVal(v), second); return; }
  let p = bigPtr(v);
  let n = bigLen(v);
  const neg = load<u8>(p) == 45;
  if (neg) { p++; n--; }
  if (second) { bNeg = neg; bPtr = p; bLen = n; }
  else { aNeg = neg; aPtr = p; aLen = n; }
}

export function magCmp(ap: usize, al: usize, bp: usize, bl: usize): i32 {
  if (al != bl) return al < bl ? -1 : 1;
  const c = memory.compare(ap, bp, al);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

/** Signed comparison of parts a and b. */
export function partsCmp(): i32 {
  const az = aLen == 1 && load<u8>(aPtr) == 48;
  const bz = bLen == 1 && load<u8>(bPtr) == 48;
  const an = aNeg && !az;
  const bn = bNeg && !bz;
  if (an != bn) return an ? -1 : 1;
  const c = magCmp(aPtr, aLen, bPtr, bLen);
  return an ? -c : c;
}

const I64_MAX_DIGITS = memory.data<u8>([57, 50, 50, 51, 51, 55, 50, 48, 51, 54, 56, 53, 52, 55, 55, 53, 56, 48, 55]); // 9223372036854775807

/** Builds a number cell from sign + magnitude (leading zeros allowed). */
export function fromParts(neg: bool, p: usize, n: usize): usize {
  while (n > 1 && load<u8>(p) == 48) { p++; n--; }
  const fits = n < 19 || (n == 19 && (magCmp(p, n, I64_MAX_DIGITS, 19) <= 0 || (neg && magCmp(p, n, I64_MAX_DIGITS, 19) <= 0)));
  if (fits) {
    let v: i64 = 0;
    for (let i: usize = 0; i < n; i++) v = v * 10 + <i64>(load<u8>(p + i) - 48);
    return mkInt(neg ? -v : v);
  }
  if (n == 19 && neg) {
    // -9223372036854775808 is still an i64
    let v: u64 = 0;
    for (let i: usize = 0; i < n; i++) v = v * 10 + <u64>(load<u8>(p + i) - 48);
    if (v == 0x8000000000000000) return mkInt(<i64>v);
  }
  if (!neg) return mkBig(p, n);
  const t = alloc(n + 1);
  store<u8>(t, 45);
  memory.copy(t + 1, p, n);
  return mkBig(t, n + 1);
}

function magAdd(ap: usize, al: usize, bp: usize, bl: usize): usize {
  const n = (al > bl ? al : bl) + 1;
  const r = alloc(n);
  let carry: u32 = 0;
  for (let i: usize = 0; i < n; i++) {
    let s = carry;
    if (i < al) s += load<u8>(ap + al - 1 - i) - 48;
    if (i < bl) s += load<u8>(bp + bl - 1 - i) - 48;
    carry = s >= 10 ? 1 : 0;
    store<u8>(r + n - 1 - i, <u8>(48 + s - carry * 10));
  }
  resLen = n;
  return r;
}

/** |a| - |b| with |a| >= |b|. */
function magSub(ap: usize, al: usize, bp: usize, bl: usize): usize {
  const r = alloc(al);
  let borrow: i32 = 0;
  for (let i: usize = 0; i < al; i++) {
    let d = <i32>(load<u8>(ap + al - 1 - i) - 48) - borrow;
    if (i < bl) d -= <i32>(load<u8>(bp + bl - 1 - i) - 48);
    borrow = d < 0 ? 1 : 0;
    store<u8>(r + al - 1 - i, <u8>(48 + d + borrow * 10));
  }
  resLen = al;
  return r;
}

let resLen: usize = 0;

function signedAdd(an: bool, ap: usize, al: usize, bn: bool, bp: usize, bl: usize): usize {
  if (an == bn) {
    const r = magAdd(ap, al, bp, bl);
    return fromParts(an, r, resLen);
  }
  const c = magCmp(ap, al, bp, bl);
  if (c == 0) return mkInt(0);
  if (c > 0) { const r = magSub(ap, al, bp, bl); return fromParts(an, r, resLen); }
  const r = magSub(bp, bl, ap, al);
  return fromParts(bn, r, resLen);
}

/** a + b for int/big cells. */
export function bigAdd(a: usize, b: usize): usize {
  loadParts(a, false); loadParts(b, true);
  return signedAdd(aNeg, aPtr, aLen, bNeg, bPtr, bLen);
}

export function bigSub(a: usize, b: usize): usize {
  loadParts(a, false); loadParts(b, true);
  return signedAdd(aNeg, aPtr, aLen, !bNeg, bPtr, bLen);
}

export function bigMul(a: usize, b: usize): usize {
  loadParts(a, false); loadParts(b, true);
  const n = aLen + bLen;
  const acc = alloc(n << 2); // u32 per digit position
  memory.fill(acc, 0, n << 2);
  for (let i: usize = 0; i < aLen; i++) {
    const da = <u32>(load<u8>(aPtr + aLen - 1 - i) - 48);
    if (da == 0) continue;
    for (let j: usize = 0; j < bLen; j++) {
      const q = acc + ((i + j) << 2);
      store<u32>(q, load<u32>(q) + da * <u32>(load<u8>(bPtr + bLen - 1 - j) - 48));
    }
  }
  const r = alloc(n);
  let carry: u32 = 0;
  for (let k: usize = 0; k < n; k++) {
    const s = load<u32>(acc + (k << 2)) + carry;
    store<u8>(r + n - 1 - k, <u8>(48 + s % 10));
    carry = s / 10;
  }
  return fromParts(aNeg != bNeg, r, n);
}

/** Approximate f64 of an int/big cell. */
export function bigToF64(v: usize): f64 {
  let p = bigPtr(v);
  let n = bigLen(v);
  let neg = false;
  if (load<u8>(p) == 45) { neg = true; p++; n--; }
  let d: f64 = 0;
  for (let i: usize = 0; i < n; i++) d = d * 10 + <f64>(load<u8>(p + i) - 48);
  return neg ? -d : d;
}
