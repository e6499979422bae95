// Unsigned big integers in fixed static buffers (u32 limbs, little-endian), just
// enough for exact float <-> decimal conversion. Layout: +0 u32 length, limbs from +4.
export const LIMBS: i32 = 240; // 7680 bits: 800 decimal digits times 5^1100 fit

@inline function lenOf(a: usize): i32 { return load<i32>(a); }
@inline function limb(a: usize, i: i32): u32 { return load<u32>(a + 4 + (<usize>i << 2)); }
@inline function setLimb(a: usize, i: i32, v: u32): void { store<u32>(a + 4 + (<usize>i << 2), v); }

function trim(a: usize): void {
  let n = lenOf(a);
  while (n > 0 && limb(a, n - 1) == 0) n--;
  store<i32>(a, n);
}

export function bnSet(a: usize, v: u64): void {
  setLimb(a, 0, <u32>v);
  setLimb(a, 1, <u32>(v >> 32));
  store<i32>(a, 2);
  trim(a);
}

export function bnCopy(dst: usize, src: usize): void {
  memory.copy(dst, src, 4 + (<usize>lenOf(src) << 2));
}

export function bnIsZero(a: usize): bool { return lenOf(a) == 0; }

/** a = a * k + add */
export function bnMulSmall(a: usize, k: u32, add: u32): void {
  let carry: u64 = add;
  const n = lenOf(a);
  for (let i = 0; i < n; i++) {
    const t = <u64>limb(a, i) * k + carry;
    setLimb(a, i, <u32>t);
    carry = t >> 32;
  }
  if (carry != 0 && n < LIMBS) { setLimb(a, n, <u32>carry); store<i32>(a, n + 1); }
}

export function bnMulPow5(a: usize, e: i32): void {
  while (e >= 13) { bnMulSmall(a, 1220703125, 0); e -= 13; }
  let k: u32 = 1;
  while (e > 0) { k *= 5; e--; }
  if (k > 1) bnMulSmall(a, k, 0);
}

export function bnMulPow10(a: usize, e: i32): void {
  bnMulPow5(a, e);
  bnShl(a, e);
}

export function bnShl(a: usize, bits: i32): void {
  if (bits <= 0 || lenOf(a) == 0) return;
  const words = bits >> 5;
  const sh = bits & 31;
  const n = lenOf(a);
  let m = n + words + 1;
  if (m > LIMBS) m = LIMBS;
  for (let i = m - 1; i >= 0; i--) {
    const src = i - words;
    let v: u32 = 0;
    if (src >= 0 && src < n) v = sh == 0 ? limb(a, src) : limb(a, src) << sh;
    if (sh != 0 && src - 1 >= 0 && src - 1 < n) v |= limb(a, src - 1) >>> (32 - sh);
    setLimb(a, i, v);
  }
  store<i32>(a, m);
  trim(a);
}

export function bnCmp(a: usize, b: usize): i32 {
  const na = lenOf(a), nb = lenOf(b);
  if (na != nb) return na < nb ? -1 : 1;
  for (let i = na - 1; i >= 0; i--) {
    const x = limb(a, i), y = limb(b, i);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

/** dst = a + b (dst may alias a). */
export function bnAdd(dst: usize, a: usize, b: usize): void {
  const na = lenOf(a), nb = lenOf(b);
  const n = na > nb ? na : nb;
  let carry: u64 = 0;
  for (let i = 0; i < n; i++) {
    const t = <u64>(i < na ? limb(a, i) : 0) + <u64>(i < nb ? limb(b, i) : 0) + carry;
    setLimb(dst, i, <u32>t);
    carry = t >> 32;
  }
  let m = n;
  if (carry != 0 && m < LIMBS) { setLimb(dst, m, <u32>carry); m++; }
  store<i32>(dst, m);
}

/** a = a - b, requires a >= b. */
export function bnSub(a: usize, b: usize): void {
  const na = lenOf(a), nb = lenOf(b);
  let borrow: i64 = 0;
  for (let i = 0; i < na; i++) {
    let t = <i64>limb(a, i) - <i64>(i < nb ? limb(b, i) : 0) - borrow;
    borrow = t < 0 ? 1 : 0;
    if (t < 0) t += 0x100000000;
    setLimb(a, i, <u32>t);
  }
  trim(a);
}

/** a = a / k; returns the remainder. */
export function bnDivSmall(a: usize, k: u32): u32 {
  let rem: u64 = 0;
  for (let i = lenOf(a) - 1; i >= 0; i--) {
    const cur = (rem << 32) | <u64>limb(a, i);
    setLimb(a, i, <u32>(cur / k));
    rem = cur % k;
  }
  trim(a);
  return <u32>rem;
}
