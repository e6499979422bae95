// sprintf with Go fmt semantics for the argument kinds OPA passes: int64 for
// integers, *big.Int beyond, float64 for numbers written with '.'/'e', string for
// strings, and the Rego text of any other value (as a Go string).
import { bBegin, bByte, bBytes, bLit, bEnd, bLen, bMark, bPadAt } from "../memory";
import { tag, mkString, strLen, strPtr, colLen, arrGet, numRepr, intVal, floatVal, bigPtr, bigLen, T_NUMBER, T_STRING, N_INT, N_FLOAT } from "../value";
import { writeRego } from "../json-print";
import { exactDigits, shortestDigits, roundDigits, zeroDigits, nDigits, decExp, DIGIT_BUF } from "../float";
import { typeError } from "../errors";
import { isStr, isArr, runeWidth, decodeRune, decodedLen } from "./util";

const K_STR = 0;
const K_INT = 1;
const K_BIG = 2;
const K_FLOAT = 3;
const K_OTHER = 4;

function kindOf(v: usize): i32 {
  const t = tag(v);
  if (t == T_STRING) return K_STR;
  if (t == T_NUMBER) {
    const r = numRepr(v);
    return r == N_INT ? K_INT : r == N_FLOAT ? K_FLOAT : K_BIG;
  }
  return K_OTHER;
}

// flags of the current verb
let fMinus = false, fPlus = false, fSpace = false, fZero = false, fSharp = false;
let width = -1, prec = -1;

const HEXL = "0123456789abcdef";
const HEXU = "0123456789ABCDEF";

function writeUnsigned(u: u64, base: u32, upper: bool, minDigits: i32): void {
  const tmp = memory.data(72);
  let p = 72;
  const digits = changetype<usize>(upper ? HEXU : HEXL);
  if (u == 0 && minDigits != 0) { p--; store<u8>(tmp + p, 48); }
  while (u != 0) { p--; store<u8>(tmp + p, <u8>load<u16>(digits + (<usize>(u % base) << 1))); u /= base; }
  while (72 - p < minDigits && p > 0) { p--; store<u8>(tmp + p, 48); }
  bBytes(tmp + p, <usize>(72 - p));
}

/** Pads the text written since `mark` to the width (left or right, spaces or zeros after a sign). */
function pad(mark: usize, numeric: bool): void {
  const len = <i32>(bMark() - mark);
  if (width <= len) return;
  const n = width - len;
  if (fMinus) { for (let i = 0; i < n; i++) bByte(32); return; }
  if (fZero && numeric) {
    // zeros go after a sign
    const c = load<u8>(mark);
    const skip: usize = c == 45 || c == 43 || c == 32 ? 1 : 0;
    bPadAt(mark + skip, n, 48);
    return;
  }
  bPadAt(mark, n, 32);
}

function writeSign(neg: bool): void {
  if (neg) bByte(45); else if (fPlus) bByte(43); else if (fSpace) bByte(32);
}

function fmtInt(v: i64, verb: u32): void {
  const mark = bMark();
  const neg = v < 0;
  const u: u64 = neg ? <u64>(0 - v) : <u64>v;
  writeSign(neg);
  const minDigits = prec >= 0 ? prec : 1;
  if (verb == 100 || verb == 118) writeUnsigned(u, 10, false, minDigits);
  else if (verb == 120) { if (fSharp) { bByte(48); bByte(120); } writeUnsigned(u, 16, false, minDigits); }
  else if (verb == 88) { if (fSharp) { bByte(48); bByte(88); } writeUnsigned(u, 16, true, minDigits); }
  else if (verb == 111) { if (fSharp) bByte(48); writeUnsigned(u, 8, false, minDigits); }
  else if (verb == 98) writeUnsigned(u, 2, false, minDigits);
  pad(mark, prec < 0);
}

function writeDigitsFixed(fracDigits: i32): void {
  // DIGIT_BUF holds nDigits digits, decimal point after decExp digits
  const nd = nDigits, dp = decExp;
  if (dp <= 0) bByte(48);
  else for (let i = 0; i < dp; i++) bByte(i < nd ? load<u8>(DIGIT_BUF + i) : 48);
  if (fracDigits > 0 || fSharp) bByte(46);
  for (let i = 0; i < fracDigits; i++) {
    const k = dp + i;
    bByte(k >= 0 && k < nd ? load<u8>(DIGIT_BUF + k) : 48);
  }
}

function writeDigitsExp(fracDigits: i32, upper: bool): void {
  const nd = nDigits;
  bByte(nd > 0 ? load<u8>(DIGIT_BUF) : 48);
  if (fracDigits > 0 || fSharp) bByte(46);
  for (let i = 1; i <= fracDigits; i++) bByte(i < nd ? load<u8>(DIGIT_BUF + i) : 48);
  bByte(upper ? 69 : 101);
  let e = nd > 0 ? decExp - 1 : 0;
  bByte(e < 0 ? 45 : 43);
  if (e < 0) e = -e;
  if (e >= 100) bByte(48 + e / 100);
  bByte(48 + (e / 10) % 10);
  bByte(48 + e % 10);
}

function fmtFloat(f: f64, verb: u32): void {
  const mark = bMark();
  const neg = f < 0 || (f == 0 && 1 / f < 0);
  if (!isFinite(f)) {
    if (isNaN(f)) bLit("NaN"); else { writeSign(neg); bLit("Inf"); }
    pad(mark, false);
    return;
  }
  writeSign(neg);
  const x = Math.abs(f);
  const upper = verb == 69 || verb == 71;
  if (verb == 102 || verb == 70) {
    const p = prec < 0 ? 6 : prec;
    if (x == 0) { zeroDigits(); } else { exactDigits(x); roundDigits(decExp + p); }
    writeDigitsFixed(p);
  } else if (verb == 101 || verb == 69) {
    const p = prec < 0 ? 6 : prec;
    if (x == 0) zeroDigits(); else { exactDigits(x); roundDigits(p + 1); }
    writeDigitsExp(p, upper);
  } else {
    // %g / %G / %v
    let eprec: i32;
    if (x == 0) { zeroDigits(); eprec = 6; }
    else if (prec < 0) { shortestDigits(x); eprec = 6; }
    else {
      const p = prec == 0 ? 1 : prec;
      exactDigits(x);
      roundDigits(p);
      eprec = p;
      if (eprec > nDigits && nDigits >= decExp) eprec = nDigits;
    }
    const exp = nDigits > 0 ? decExp - 1 : 0;
    if (exp < -4 || exp >= eprec) writeDigitsExp(nDigits > 1 ? nDigits - 1 : 0, upper);
    else writeDigitsFixed(nDigits > decExp ? nDigits - decExp : 0);
  }
  pad(mark, true);
}


function writeString(p: usize, n: usize): void {
  const mark = bMark();
  let len = n;
  if (prec >= 0) {
    // precision truncates to that many runes
    let i: usize = 0, r = 0;
    while (i < n && r < prec) { i += runeWidth(p + i, n - i); r++; }
    len = i < n ? i : n;
  }
  bBytes(p, len);
  pad(mark, false);
}

function writeGoQuoted(p: usize, n: usize): void {
  const mark = bMark();
  bByte(34);
  let i: usize = 0;
  while (i < n) {
    const c = <u32>load<u8>(p + i);
    if (c == 34 || c == 92) { bByte(92); bByte(c); i++; continue; }
    if (c == 10) { bByte(92); bByte(110); i++; continue; }
    if (c == 9) { bByte(92); bByte(116); i++; continue; }
    if (c == 13) { bByte(92); bByte(114); i++; continue; }
    if (c < 32 || c == 127) { bByte(92); bByte(120); bByte(load<u16>(changetype<usize>(HEXL) + ((c >> 4) << 1))); bByte(load<u16>(changetype<usize>(HEXL) + ((c & 15) << 1))); i++; continue; }
    const l = runeWidth(p + i, n - i);
    bBytes(p + i, l);
    i += l;
  }
  bByte(34);
  pad(mark, false);
}

function typeNameGo(k: i32): string {
  if (k == K_INT) return "int64";
  if (k == K_FLOAT) return "float64";
  if (k == K_BIG) return "*big.Int";
  return "string";
}

/** Writes an argument with %v (no flags), as Go does inside %!verb(type=value). */
function writePlain(v: usize, k: i32): void {
  const w = width, p = prec;
  width = -1; prec = -1;
  const m = fMinus, pl = fPlus, sp = fSpace, z = fZero, sh = fSharp;
  fMinus = fPlus = fSpace = fZero = fSharp = false;
  writeArg(v, k, 118);
  width = w; prec = p;
  fMinus = m; fPlus = pl; fSpace = sp; fZero = z; fSharp = sh;
}

function badVerb(v: usize, k: i32, verb: u32): void {
  bByte(37); bByte(33); bByte(verb); bByte(40);
  bLit(typeNameGo(k));
  bByte(61);
  writePlain(v, k);
  bByte(41);
}

function writeArg(v: usize, k: i32, verb: u32): void {
  if (k == K_STR || k == K_OTHER) {
    if (verb == 118 || verb == 115) {
      if (k == K_STR) writeString(strPtr(v), strLen(v));
      else { const mark = bMark(); writeRego(v); pad(mark, false); }
      return;
    }
    if (verb == 113 && k == K_STR) { writeGoQuoted(strPtr(v), strLen(v)); return; }
    if ((verb == 120 || verb == 88) && k == K_STR) {
      const mark = bMark();
      const digits = changetype<usize>(verb == 88 ? HEXU : HEXL);
      const p = strPtr(v), n = strLen(v);
      for (let i: usize = 0; i < n; i++) {
        const c = <u32>load<u8>(p + i);
        bByte(load<u16>(digits + ((c >> 4) << 1)));
        bByte(load<u16>(digits + ((c & 15) << 1)));
      }
      pad(mark, false);
      return;
    }
    badVerb(v, k, verb);
    return;
  }
  if (k == K_INT) {
    const x = intVal(v);
    if (verb == 100 || verb == 118 || verb == 120 || verb == 88 || verb == 111 || verb == 98) { fmtInt(x, verb); return; }
    if (verb == 99) { // %c
      const mark = bMark();
      const tmp = memory.data(4);
      const cp = <u32>x;
      let len: usize = 1;
      if (cp < 0x80) store<u8>(tmp, <u8>cp);
      else if (cp < 0x800) { store<u8>(tmp, <u8>(0xc0 | (cp >> 6))); store<u8>(tmp + 1, <u8>(0x80 | (cp & 63))); len = 2; }
      else if (cp < 0x10000) { store<u8>(tmp, <u8>(0xe0 | (cp >> 12))); store<u8>(tmp + 1, <u8>(0x80 | ((cp >> 6) & 63))); store<u8>(tmp + 2, <u8>(0x80 | (cp & 63))); len = 3; }
      else { store<u8>(tmp, <u8>(0xf0 | (cp >> 18))); store<u8>(tmp + 1, <u8>(0x80 | ((cp >> 12) & 63))); store<u8>(tmp + 2, <u8>(0x80 | ((cp >> 6) & 63))); store<u8>(tmp + 3, <u8>(0x80 | (cp & 63))); len = 4; }
      bBytes(tmp, len);
      pad(mark, false);
      return;
    }
    badVerb(v, k, verb);
    return;
  }
  if (k == K_BIG) {
    // *big.Int formats d, s, v in base 10 (other bases are not supported here)
    if (verb == 100 || verb == 115 || verb == 118) {
      const mark = bMark();
      let p = bigPtr(v), n = bigLen(v);
      const neg = load<u8>(p) == 45;
      if (neg) { p++; n--; }
      writeSign(neg);
      bBytes(p, n);
      pad(mark, true);
      return;
    }
    badVerb(v, k, verb);
    return;
  }
  // float64
  if (verb == 118 || verb == 101 || verb == 69 || verb == 102 || verb == 70 || verb == 103 || verb == 71) {
    fmtFloat(floatVal(v), verb);
    return;
  }
  badVerb(v, k, verb);
}

export function opa_strings_sprintf(format: usize, args: usize): usize {
  if (!isStr(format)) return typeError("sprintf", 1, "string", format);
  if (!isArr(args)) return typeError("sprintf", 2, "array", args);
  const p = strPtr(format), n = strLen(format);
  const argc = colLen(args);
  let argi = 0;
  bBegin();
  let i: usize = 0;
  while (i < n) {
    const c = <u32>load<u8>(p + i);
    if (c != 37) { bByte(c); i++; continue; }
    i++;
    if (i >= n) { bLit("%!(NOVERB)"); break; }
    fMinus = fPlus = fSpace = fZero = fSharp = false;
    width = -1; prec = -1;
    // flags
    while (i < n) {
      const f = load<u8>(p + i);
      if (f == 45) fMinus = true; else if (f == 43) fPlus = true; else if (f == 32) fSpace = true;
      else if (f == 48) fZero = !fMinus; else if (f == 35) fSharp = true; else break;
      i++;
    }
    while (i < n && load<u8>(p + i) - 48 < 10) { width = (width < 0 ? 0 : width) * 10 + <i32>(load<u8>(p + i) - 48); i++; }
    if (i < n && load<u8>(p + i) == 46) {
      i++;
      prec = 0;
      while (i < n && load<u8>(p + i) - 48 < 10) { prec = prec * 10 + <i32>(load<u8>(p + i) - 48); i++; }
    }
    if (i >= n) { bLit("%!(NOVERB)"); break; }
    const verb = decodeRune(p + i, n - i);
    i += decodedLen;
    if (verb == 37) { bByte(37); continue; }
    if (argi >= argc) {
      bByte(37); bByte(33); bByte(verb); bLit("(MISSING)");
      continue;
    }
    const v = arrGet(args, argi++);
    writeArg(v, kindOf(v), verb);
  }
  if (argi < argc) {
    bLit("%!(EXTRA ");
    for (let k = argi; k < argc; k++) {
      if (k > argi) { bByte(44); bByte(32); }
      const v = arrGet(args, k);
      const kk = kindOf(v);
      bLit(typeNameGo(kk));
      bByte(61);
      writePlain(v, kk);
    }
    bByte(41);
  }
  const len = bLen();
  const out = bEnd();
  return mkString(out, len);
}
