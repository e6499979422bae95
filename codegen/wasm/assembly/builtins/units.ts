// units.parse and units.parse_bytes, computed exactly in decimal (OPA uses big
// floats: units.parse("0.0000005M") == 0.5 must hold).
import { alloc } from "../memory";
import { strLen, strPtr, mkInt } from "../value";
import { parseNumber } from "../number";
import { typeError, builtinError } from "../errors";
import { isStr } from "./util";

const KIND_NONE = 0;
const KIND_POW10 = 1;
const KIND_POW2 = 2;

let multKind = 0;
let multExp = 0;

function lower(c: u32): u32 { return c >= 65 && c <= 90 ? c + 32 : c; }

/** Sets multKind/multExp for a unit; false when unknown. bytes: whole unit lowercased, optional trailing "b". */
function unitOf(p: usize, n: usize, bytes: bool): bool {
  multKind = KIND_POW10; multExp = 0;
  if (n == 0) return true;
  let first = <u32>load<u8>(p);
  let m = n;
  if (bytes) {
    first = lower(first);
    if (m >= 2 && lower(load<u8>(p + m - 1)) == 98) m--; // "kb", "kib"
    else if (m == 1 && first == 98) return true; // plain "b"
  }
  if (m > 2) return false;
  const binary = m == 2;
  if (binary && lower(load<u8>(p + 1)) != 105) return false; // second letter must be i
  if (!bytes && !binary && first == 109) { multExp = -3; return true; } // "m" is milli
  let k = 0;
  switch (lower(first)) {
    case 107: k = 1; break; // k
    case 109: k = 2; break; // M (mebi with i)
    case 103: k = 3; break; // g
    case 116: k = 4; break; // t
    case 112: k = 5; break; // p
    case 101: k = 6; break; // e
    default: return false;
  }
  if (binary) { multKind = KIND_POW2; multExp = 10 * k; }
  else multExp = 3 * k;
  return true;
}

/** Multiplies the decimal digits at d[0..n) (most significant first) by 2^bits in place; returns the new length. */
function mulPow2(d: usize, n: usize, cap: usize, bits: i32): usize {
  while (bits > 0) {
    const step = bits > 20 ? 20 : bits;
    bits -= step;
    let carry: u64 = 0;
    for (let i = n; i > 0; i--) {
      const t = <u64>(load<u8>(d + i - 1) - 48) * (<u64>1 << step) + carry;
      store<u8>(d + i - 1, <u8>(48 + <u32>(t % 10)));
      carry = t / 10;
    }
    while (carry > 0 && n < cap) {
      memory.copy(d + 1, d, n);
      store<u8>(d, <u8>(48 + <u32>(carry % 10)));
      carry /= 10;
      n++;
    }
  }
  return n;
}

function parseUnits(name: string, s: usize, bytes: bool): usize {
  if (!isStr(s)) return typeError(name, 1, "string", s);
  const p = strPtr(s), n = strLen(s);
  // drop quotes; spaces are an error
  const t = alloc(n);
  let tn: usize = 0;
  for (let i: usize = 0; i < n; i++) {
    const c = load<u8>(p + i);
    if (c == 34) continue;
    if (c == 32) return builtinError(name, "spaces not allowed in resource strings");
    store<u8>(t + tn++, c);
  }
  let i: usize = 0;
  let dots = 0;
  while (i < tn && (load<u8>(t + i) == 46 || load<u8>(t + i) - 48 < 10)) { if (load<u8>(t + i) == 46) dots++; i++; }
  if (i == 0) return builtinError(name, "no amount provided");
  if (dots > 1 || (dots == 1 && i == 1)) return builtinError(name, "could not parse amount to a number");
  if (!unitOf(t + i, tn - i, bytes)) return builtinError(name, "unit not recognized");
  // digits without the dot; e10 counts fraction digits
  const cap = i + 64;
  const d = alloc(cap + 32);
  let dn: usize = 0;
  let e10: i32 = 0;
  let frac = false;
  for (let k: usize = 0; k < i; k++) {
    const c = load<u8>(t + k);
    if (c == 46) { frac = true; continue; }
    store<u8>(d + dn++, c);
    if (frac) e10--;
  }
  if (multKind == KIND_POW2) dn = mulPow2(d, dn, cap, multExp);
  else e10 += multExp;
  // strip leading zeros (JSON forbids them)
  let start: usize = 0;
  while (start + 1 < dn && load<u8>(d + start) == 48) start++;
  let q = d + start;
  let qn = dn - start;
  if (bytes && e10 < 0) {
    // parse_bytes truncates to an integer
    const drop = <usize>(-e10);
    if (drop >= qn) return mkInt(0);
    qn -= drop;
    e10 = 0;
  }
  // text: digits, then zeros or an exponent
  const out = alloc(qn + 16 + (e10 > 0 ? <usize>e10 : 0));
  memory.copy(out, q, qn);
  let o = out + qn;
  if (e10 > 0) { for (let z = 0; z < e10; z++) store<u8>(o++, 48); }
  else if (e10 < 0) {
    store<u8>(o++, 101); store<u8>(o++, 45);
    let e = -e10;
    const s0 = o;
    do { store<u8>(o++, <u8>(48 + e % 10)); e /= 10; } while (e > 0);
    // reverse the exponent digits
    let a = s0, b = o - 1;
    while (a < b) { const x = load<u8>(a); store<u8>(a, load<u8>(b)); store<u8>(b, x); a++; b--; }
  }
  const v = parseNumber(out, o - out);
  return v != 0 ? v : builtinError(name, "could not parse amount to a number");
}

export function tg_units_parse(s: usize): usize { return parseUnits("units.parse", s, false); }
export function tg_units_parse_bytes(s: usize): usize { return parseUnits("units.parse_bytes", s, true); }
