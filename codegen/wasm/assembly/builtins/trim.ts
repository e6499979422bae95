// The trim family (Go strings.Trim* semantics: cutsets are sets of runes).
import { mkString, strLen, strPtr } from "../value";
import { typeError } from "../errors";
import { isStr, decodeRune, decodedLen } from "./util";

function twoStrings(name: string, a: usize, b: usize): bool {
  if (!isStr(a)) { typeError(name, 1, "string", a); return false; }
  if (!isStr(b)) { typeError(name, 2, "string", b); return false; }
  return true;
}

function inCutset(cp: u32, cs: usize): bool {
  const p = strPtr(cs), n = strLen(cs);
  let i: usize = 0;
  while (i < n) {
    const c = decodeRune(p + i, n - i);
    if (c == cp) return true;
    i += decodedLen;
  }
  return false;
}

function isSpaceRune(cp: u32): bool {
  if (cp == 32 || (cp >= 9 && cp <= 13)) return true;
  if (cp < 0x85) return false;
  return cp == 0x85 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
    cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/** Byte index after trimming from the left runes in cutset (or spaces when cs is 0). */
function leftCut(p: usize, n: usize, cs: usize): usize {
  let i: usize = 0;
  while (i < n) {
    const c = decodeRune(p + i, n - i);
    if (cs == 0 ? !isSpaceRune(c) : !inCutset(c, cs)) break;
    i += decodedLen;
  }
  return i;
}

/** Byte length after trimming from the right. */
function rightCut(p: usize, n: usize, from: usize, cs: usize): usize {
  let end = n;
  while (end > from) {
    let s = end - 1;
    while (s > from && (load<u8>(p + s) & 0xc0) == 0x80) s--;
    const c = decodeRune(p + s, end - s);
    if (cs == 0 ? !isSpaceRune(c) : !inCutset(c, cs)) break;
    end = s;
  }
  return end;
}

function trimImpl(name: string, s: usize, cs: usize, left: bool, right: bool): usize {
  if (!isStr(s)) return typeError(name, 1, "string", s);
  if (cs != 0 && !isStr(cs)) return typeError(name, 2, "string", cs);
  const p = strPtr(s), n = strLen(s);
  const a = left ? leftCut(p, n, cs) : 0;
  const b = right ? rightCut(p, n, a, cs) : n;
  return mkString(p + a, b - a);
}

export function opa_strings_trim(s: usize, cs: usize): usize {
  if (cs == 0) return 0;
  return trimImpl("trim", s, cs, true, true);
}
export function opa_strings_trim_left(s: usize, cs: usize): usize {
  if (cs == 0) return 0;
  return trimImpl("trim_left", s, cs, true, false);
}
export function opa_strings_trim_right(s: usize, cs: usize): usize {
  if (cs == 0) return 0;
  return trimImpl("trim_right", s, cs, false, true);
}
export function opa_strings_trim_space(s: usize): usize {
  return trimImpl("trim_space", s, 0, true, true);
}

export function opa_strings_trim_prefix(s: usize, pre: usize): usize {
  if (!twoStrings("trim_prefix", s, pre)) return 0;
  const n = strLen(pre);
  if (n <= strLen(s) && memory.compare(strPtr(s), strPtr(pre), n) == 0) return mkString(strPtr(s) + n, strLen(s) - n);
  return s;
}

export function opa_strings_trim_suffix(s: usize, suf: usize): usize {
  if (!twoStrings("trim_suffix", s, suf)) return 0;
  const n = strLen(suf), m = strLen(s);
  if (n <= m && memory.compare(strPtr(s) + m - n, strPtr(suf), n) == 0) return mkString(strPtr(s), m - n);
  return s;
}

