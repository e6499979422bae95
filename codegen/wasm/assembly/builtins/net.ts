// net.cidr_contains: IPv4 and IPv6 addresses and CIDRs as Go's net package parses them.
import { mkBool, strLen, strPtr } from "../value";
import { typeError, builtinErrorWith } from "../errors";
import { isStr } from "./util";

// Parsed address: 16 bytes, family 4 or 6, prefix length (-1 for a plain IP).
const ADDR_A = memory.data(16);
const ADDR_B = memory.data(16);
let family = 0;
let prefixLen = -1;

function hexDigit(c: u32): i32 {
  if (c - 48 < 10) return <i32>(c - 48);
  const l = c | 32;
  if (l - 97 < 6) return <i32>(l - 87);
  return -1;
}

/** IPv4 dotted quad at [p, p+n) into out[off..off+4); false if malformed (leading zeros too, as Go). */
function parseV4(p: usize, n: usize, out: usize, off: usize): bool {
  let part = 0;
  let i: usize = 0;
  while (part < 4) {
    if (i >= n) return false;
    let v: u32 = 0;
    const start = i;
    while (i < n && load<u8>(p + i) - 48 < 10) {
      v = v * 10 + (load<u8>(p + i) - 48);
      if (v > 255) return false;
      i++;
    }
    const len = i - start;
    if (len == 0 || (len > 1 && load<u8>(p + start) == 48)) return false;
    store<u8>(out + off + part, <u8>v);
    part++;
    if (part < 4) {
      if (i >= n || load<u8>(p + i) != 46) return false;
      i++;
    }
  }
  return i == n;
}

function parseV6(p: usize, n: usize, out: usize): bool {
  memory.fill(out, 0, 16);
  let i: usize = 0;
  let k = 0; // bytes written
  let gap = -1; // byte index of "::"
  if (n >= 2 && load<u8>(p) == 58 && load<u8>(p + 1) == 58) { gap = 0; i = 2; if (i == n) return true; }
  else if (n >= 1 && load<u8>(p) == 58) return false;
  while (i < n) {
    // embedded IPv4 in the last 4 bytes
    let dots = false;
    for (let j = i; j < n && load<u8>(p + j) != 58; j++) if (load<u8>(p + j) == 46) { dots = true; break; }
    if (dots) {
      if (k > 12) return false;
      if (!parseV4(p + i, n - i, out, <usize>k)) return false;
      k += 4;
      i = n;
      break;
    }
    let v: u32 = 0;
    let digits = 0;
    while (i < n && hexDigit(load<u8>(p + i)) >= 0) {
      v = (v << 4) | <u32>hexDigit(load<u8>(p + i));
      digits++;
      i++;
      if (digits > 4) return false;
    }
    if (digits == 0) return false;
    if (k > 14) return false;
    store<u8>(out + k, <u8>(v >> 8));
    store<u8>(out + k + 1, <u8>v);
    k += 2;
    if (i == n) break;
    if (load<u8>(p + i) != 58) return false;
    i++;
    if (i < n && load<u8>(p + i) == 58) {
      if (gap >= 0) return false;
      gap = k;
      i++;
      if (i == n) break;
    } else if (i == n) return false;
  }
  if (gap < 0) return k == 16;
  if (k == 16) return false;
  // move the bytes after the gap to the end
  const tail = k - gap;
  for (let j = tail - 1; j >= 0; j--) {
    store<u8>(out + 16 - tail + j, load<u8>(out + gap + j));
  }
  for (let j = gap; j < 16 - tail; j++) store<u8>(out + j, 0);
  return true;
}

/** Parses "ip" or "ip/len" (cidr true requires the prefix) into out; sets family/prefixLen. */
function parseAddr(s: usize, out: usize, cidr: bool): bool {
  const p = strPtr(s), n = strLen(s);
  let slash: isize = -1;
  for (let i: usize = 0; i < n; i++) if (load<u8>(p + i) == 47) { slash = <isize>i; break; }
  if (cidr != (slash >= 0)) return false;
  const an = slash >= 0 ? <usize>slash : n;
  let isV6 = false;
  for (let i: usize = 0; i < an; i++) if (load<u8>(p + i) == 58) { isV6 = true; break; }
  if (isV6) { if (!parseV6(p, an, out)) return false; family = 6; }
  else { memory.fill(out, 0, 16); if (!parseV4(p, an, out, 0)) return false; family = 4; }
  prefixLen = -1;
  if (slash >= 0) {
    let v = 0;
    let i = <usize>slash + 1;
    if (i >= n) return false;
    const start = i;
    while (i < n && load<u8>(p + i) - 48 < 10) { v = v * 10 + <i32>(load<u8>(p + i) - 48); i++; if (v > 128) return false; }
    if (i != n || (i - start > 1 && load<u8>(p + start) == 48)) return false;
    if (v > (family == 4 ? 32 : 128)) return false;
    prefixLen = v;
  }
  return true;
}

/** IPv4 as the IPv4-mapped IPv6 form, so both families compare in 128 bits. */
function toV6(a: usize): void {
  for (let j = 3; j >= 0; j--) store<u8>(a + 12 + j, load<u8>(a + j));
  memory.fill(a, 0, 10);
  store<u8>(a + 10, 0xff);
  store<u8>(a + 11, 0xff);
}

function samePrefix(a: usize, b: usize, bits: i32): bool {
  const full = bits >> 3;
  if (full > 0 && memory.compare(a, b, <usize>full) != 0) return false;
  const rest = bits & 7;
  if (rest == 0) return true;
  const mask: u32 = (<u32>0xff << <u32>(8 - rest)) & 0xff;
  return (<u32>load<u8>(a + full) & mask) == (<u32>load<u8>(b + full) & mask);
}

export function tg_net_cidr_contains(cidr: usize, x: usize): usize {
  if (!isStr(cidr)) return typeError("net.cidr_contains", 1, "string", cidr);
  if (!parseAddr(cidr, ADDR_A, true)) return builtinErrorWith("net.cidr_contains", "invalid CIDR address: ", strPtr(cidr), strLen(cidr), "");
  // OPA reads the second operand with position 1 too (StringOperand(operands[1], 1))
  if (!isStr(x)) return typeError("net.cidr_contains", 1, "string", x);
  const famA = family;
  let lenA = prefixLen;
  if (!parseAddr(x, ADDR_B, false) && !parseAddr(x, ADDR_B, true)) {
    return builtinErrorWith("net.cidr_contains", "not a valid textual representation of an IP address or CIDR: ", strPtr(x), strLen(x), "");
  }
  const famB = family;
  let lenB = prefixLen;
  if (famA != famB) {
    // Go compares a v4 network with v4-mapped v6 addresses and vice versa
    if (famA == 4) { toV6(ADDR_A); lenA += 96; }
    if (famB == 4) { toV6(ADDR_B); if (lenB >= 0) lenB += 96; }
  }
  if (lenB >= 0 && lenB < lenA) return mkBool(false);
  return mkBool(samePrefix(ADDR_A, ADDR_B, lenA));
}
