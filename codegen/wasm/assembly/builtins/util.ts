// Shared helpers for builtins: type tests, UTF-8 stepping, string building.
import { alloc } from "../memory";
import { tag, mkString, strLen, strPtr, T_NUMBER, T_STRING, T_ARRAY, T_SET, T_OBJECT } from "../value";

@inline export function isNum(v: usize): bool { return v != 0 && tag(v) == T_NUMBER; }
@inline export function isStr(v: usize): bool { return v != 0 && tag(v) == T_STRING; }
@inline export function isArr(v: usize): bool { return v != 0 && tag(v) == T_ARRAY; }
@inline export function isSet(v: usize): bool { return v != 0 && tag(v) == T_SET; }
@inline export function isObj(v: usize): bool { return v != 0 && tag(v) == T_OBJECT; }

/** Byte length of the UTF-8 sequence starting with byte b (1 for invalid bytes). */
@inline export function utf8Len(b: u32): usize {
  if (b < 0x80) return 1;
  if (b >= 0xf0) return 4;
  if (b >= 0xe0) return 3;
  if (b >= 0xc0) return 2;
  return 1;
}

/** Number of code points (runes) in [p, p+n). */
export function runeCount(p: usize, n: usize): i32 {
  let c = 0;
  let i: usize = 0;
  while (i < n) { i += utf8Len(load<u8>(p + i)); c++; }
  return c;
}

/** Byte offset of rune index `r` (n when past the end). */
export function runeOffset(p: usize, n: usize, r: i32): usize {
  let i: usize = 0;
  while (r > 0 && i < n) { i += utf8Len(load<u8>(p + i)); r--; }
  return i < n ? i : n;
}

export let decodedLen: usize = 0;
/** Decodes the code point at p (max n bytes); sets decodedLen. */
export function decodeRune(p: usize, n: usize): u32 {
  const b0 = <u32>load<u8>(p);
  let len = utf8Len(b0);
  if (len > n) len = 1;
  decodedLen = len;
  if (len == 1) return b0;
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
