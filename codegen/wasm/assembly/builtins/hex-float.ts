// Go strconv.ParseFloat's hexadecimal form: [sign] 0x mantissa p exponent, as to_number reads it.

/** Outcome of the last parseHexFloat: HEX_OK, HEX_SYNTAX (not this form) or HEX_RANGE (overflow). */
export const HEX_OK: i32 = 0;
export const HEX_SYNTAX: i32 = 1;
export const HEX_RANGE: i32 = 2;
export let hexStatus: i32 = HEX_OK;

function hexDigit(c: u32): i32 {
  if (c - 48 < 10) return <i32>(c - 48);
  const l = c | 32;
  if (l - 97 < 6) return <i32>(l - 87);
  return -1;
}

/** The byte at i is a digit of the part being read (hex mantissa or decimal exponent), or the prefix's x. */
function digitOrPrefixAt(p: usize, n: usize, i: usize, hex: bool): bool {
  if (i >= n) return false;
  const c = <u32>load<u8>(p + i);
  return hex ? hexDigit(c) >= 0 || (c | 32) == 120 : c - 48 < 10;
}

/**
 * Reads p[0..n) whole as `[+-]0x<hex digits>[.<hex digits>]p[+-]<decimal digits>` (at least
 * one mantissa digit; Go requires the p exponent in this form). An underscore may stand only
 * between two digits or right after the 0x, as Go's underscoreOK allows. Rounds to nearest
 * even; a value beyond the largest float64 sets HEX_RANGE.
 */
export function parseHexFloat(p: usize, n: usize): f64 {
  hexStatus = HEX_SYNTAX;
  let i: usize = 0;
  let neg = false;
  if (i < n && (load<u8>(p) == 43 || load<u8>(p) == 45)) { neg = load<u8>(p) == 45; i++; }
  if (i + 2 > n || load<u8>(p + i) != 48 || (load<u8>(p + i + 1) | 32) != 120) return 0;
  i += 2;
  let mant: u64 = 0;
  let exp: i64 = 0; // binary exponent adjustment from digits beyond 64 bits and fraction digits
  let sticky = false;
  let digits = 0;
  let seenDot = false;
  for (; i < n; i++) {
    const c = <u32>load<u8>(p + i);
    if (c == 95) {
      if (!digitOrPrefixAt(p, n, i - 1, true) || !digitOrPrefixAt(p, n, i + 1, true) || (load<u8>(p + i + 1) | 32) == 120) return 0;
      continue;
    }
    if (c == 46 && !seenDot) { seenDot = true; continue; }
    const d = hexDigit(c);
    if (d < 0) break;
    digits++;
    if (mant >> 60 == 0) {
      mant = (mant << 4) | <u64>d;
      if (seenDot) exp -= 4;
    } else {
      if (d != 0) sticky = true;
      if (!seenDot) exp += 4;
    }
  }
  if (digits == 0 || i >= n || (load<u8>(p + i) | 32) != 112) return 0;
  i++;
  let eneg = false;
  if (i < n && (load<u8>(p + i) == 43 || load<u8>(p + i) == 45)) { eneg = load<u8>(p + i) == 45; i++; }
  let e: i64 = 0;
  let edigits = 0;
  for (; i < n; i++) {
    const c = <u32>load<u8>(p + i);
    if (c == 95) {
      if (!digitOrPrefixAt(p, n, i - 1, false) || !digitOrPrefixAt(p, n, i + 1, false)) return 0;
      continue;
    }
    if (c - 48 >= 10) break;
    edigits++;
    if (e < 100000) e = e * 10 + <i64>(c - 48);
  }
  if (edigits == 0 || i != n) return 0;
  hexStatus = HEX_OK;
  if (mant == 0) return neg ? -0.0 : 0.0;
  exp += eneg ? -e : e;
  // keep 64 significant bits with a sticky lowest bit, so one rounding to 53 bits is exact
  while (mant >> 63 == 0) { mant <<= 1; exp--; }
  if (sticky) mant |= 1;
  let f = <f64>mant; // rounds to nearest even
  const scale = exp;
  if (scale > 2000) { hexStatus = HEX_RANGE; return 0; }
  if (scale < -2200) return neg ? -0.0 : 0.0;
  // scale in steps that stay within the exponent range of f64
  let s = <i32>scale;
  while (s > 1000) { f *= 1.0715086071862673e301; s -= 1000; } // 2^1000
  while (s < -1000) { f *= 9.332636185032189e-302; s += 1000; } // 2^-1000
  f *= reinterpret<f64>(<u64>(s + 1023) << 52); // 2^s, a normal f64 for |s| <= 1000
  if (!isFinite(f)) { hexStatus = HEX_RANGE; return 0; }
  return neg ? -f : f;
}
