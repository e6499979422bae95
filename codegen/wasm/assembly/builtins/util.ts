// Shared helpers for builtins: type tests, UTF-8 stepping, string building.
import { alloc } from "../memory";
import { tag, mkString, strLen, strPtr, T_NUMBER, T_STRING, T_ARRAY, T_SET, T_OBJECT } from "../value";

@inline export function isNum(v: usize): bool { return v != 0 && tag(v) == T_NUMBER; }
@inline export function isStr(v: usize): bool { return v != 0 && tag(v) == T_STRING; }
@inline export function isArr(v: usize): bool { return v != 0 && tag(v) == T_ARRAY; }
@inline export function isSet(v: usize): bool { return v != 0 && tag(v) == T_SET; }
@inline export function isObj(v: usize): bool { return v != 0 && tag(v) == T_OBJECT; }

@inline function isCont(p: usize): bool { return (load<u8>(p) & 0xc0) == 0x80; }

/**
 * Byte width of the rune at p (at most n bytes), validating as Go does: an invalid
 * or truncated sequence is one byte wide (and decodes to U+FFFD).
 */
export function runeWidth(p: usize, n: usize): usize {
  const b0 = <u32>load<u8>(p);
  if (b0 < 0x80) return 1;
  if (b0 < 0xc2 || b0 > 0xf4 || n < 2) return 1;
  if (b0 < 0xe0) return isCont(p + 1) ? 2 : 1;
  let lo: u32 = 0x80, hi: u32 = 0xbf;
  if (b0 == 0xe0) lo = 0xa0; else if (b0 == 0xed) hi = 0x9f; else if (b0 == 0xf0) lo = 0x90; else if (b0 == 0xf4) hi = 0x8f;
  const b1 = <u32>load<u8>(p + 1);
  if (b1 < lo || b1 > hi) return 1;
  if (b0 < 0xf0) return n >= 3 && isCont(p + 2) ? 3 : 1;
  return n >= 4 && isCont(p + 2) && isCont(p + 3) ? 4 : 1;
}

/** Number of code points (runes) in [p, p+n); invalid bytes count one each. */
export function runeCount(p: usize, n: usize): i32 {
  let c = 0;
  let i: usize = 0;
  while (i < n) { i += runeWidth(p + i, n - i); c++; }
  return c;
}

/** Byte offset of rune index `r` (n when past the end). */
export function runeOffset(p: usize, n: usize, r: i32): usize {
  let i: usize = 0;
  while (r > 0 && i < n) { i += runeWidth(p + i, n - i); r--; }
  return i < n ? i : n;
}

export let decodedLen: usize = 0;
/** Decodes the code point at p (max n bytes); sets decodedLen. Invalid bytes give U+FFFD. */
export function decodeRune(p: usize, n: usize): u32 {
  const b0 = <u32>load<u8>(p);
  const len = runeWidth(p, n);
  decodedLen = len;
  if (len == 1) return b0 < 0x80 ? b0 : 0xfffd;
  if (len == 2) return ((b0 & 0x1f) << 6) | (load<u8>(p + 1) & 0x3f);
  if (len == 3) return ((b0 & 0x0f) << 12) | ((<u32>load<u8>(p + 1) & 0x3f) << 6) | (load<u8>(p + 2) & 0x3f);
  return ((b0 & 0x07) << 18) | ((<u32>load<u8>(p + 1) & 0x3f) << 12) | ((<u32>load<u8>(p + 2) & 0x3f) << 6) | (load<u8>(p + 3) & 0x3f);
}

/** Index of needle in hay (bytes) from `from`, or -1. */
export function indexOfBytes(hp: usize, hn: usize, np: usize, nn: usize, from: usize): isize {
  if (nn == 0) return <isize>from;
  if (nn > hn) return -1;
  const first = load<u8>(np);
  for (let i = from; i + nn <= hn; i++) {
    if (load<u8>(hp + i) == first && memory.compare(hp + i, np, nn) == 0) return <isize>i;
  }
  return -1;
}

/** Fresh string value with a copy of [p, p+n). */
export function copyString(p: usize, n: usize): usize {
  const d = alloc(n);
  memory.copy(d, p, n);
  return mkString(d, n);
}

/** String value for an AssemblyScript ASCII literal. */
export function litString(s: string): usize {
  const n = <usize>s.length;
  const d = alloc(n);
  const p = changetype<usize>(s);
  for (let i: usize = 0; i < n; i++) store<u8>(d + i, <u8>load<u16>(p + (i << 1)));
  return mkString(d, n);
}

export function strEq(a: usize, b: usize): bool {
  const n = strLen(a);
  return n == strLen(b) && memory.compare(strPtr(a), strPtr(b), n) == 0;
}
