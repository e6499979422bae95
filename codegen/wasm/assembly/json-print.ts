// Printing values as JSON (Go/OPA style) or in Rego syntax, through the heap-top builder.
import { bBegin, bByte, bBytes, bEnd, bLen, bLit, bMark, bReserve, bSkipTo } from "./memory";
import {
  tag, boolVal, strLen, strPtr, colLen, arrGet, objKey, objVal, setGet, mkString,
  T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET,
} from "./value";
import { writeNumber } from "./number";

const HEX = memory.data<u8>([48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102]);
let keyDepth = 0; // >0 while printing a non-string object key inside a JSON string

@inline function out(c: u32): void {
  if (keyDepth > 0 && (c == 34 || c == 92)) bByte(92);
  bByte(c);
}

function writeU(cp: u32): void {
  out(92); out(117);
  out(load<u8>(HEX + ((cp >> 12) & 15))); out(load<u8>(HEX + ((cp >> 8) & 15)));
  out(load<u8>(HEX + ((cp >> 4) & 15))); out(load<u8>(HEX + (cp & 15)));
}

// Per byte: 1 = always escaped (control, quote, backslash), 2 = escaped when `html`
// (<, >, &, and 0xe2, which may start U+2028/U+2029), 0 = written as it is.
const ESCAPE = memory.data<u8>([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 8);

@inline function haszero(x: u64): u64 {
  return (x - 0x0101010101010101) & ~x;
}

/** Writes a quoted, escaped string (Go encoding/json escaping when `html`). */
export function writeQuoted(p: usize, n: usize, html: bool): void {
  if (keyDepth > 0) {
    out(34);
    for (let i: usize = 0; i < n; i++) i = writeByte(p, n, i, html);
    out(34);
    return;
  }
  // Room for the worst case (every byte six), then plain bytes are stored directly,
  // eight at a time while none of them is one to escape.
  let o = bReserve(n * 6 + 2);
  store<u8>(o++, 34);
  let i: usize = 0;
  while (i < n) {
    if (i + 8 <= n) {
      const x = load<u64>(p + i);
      let t = haszero(x ^ 0x2222222222222222) | haszero(x ^ 0x5c5c5c5c5c5c5c5c) | ((x - 0x2020202020202020) & ~x);
      if (html) t |= haszero(x ^ 0x3c3c3c3c3c3c3c3c) | haszero(x ^ 0x3e3e3e3e3e3e3e3e) | haszero(x ^ 0x2626262626262626) | haszero(x ^ 0xe2e2e2e2e2e2e2e2);
      t &= 0x8080808080808080;
      store<u64>(o, x);
      if (t == 0) { o += 8; i += 8; continue; }
      // the lowest flagged byte is the first one to escape (false positives lie above it)
      const k = <usize>(ctz(t) >> 3);
      o += k;
      i += k;
    } else {
      const c = load<u8>(p + i);
      const kind = load<u8>(ESCAPE + c);
      if (kind == 0 || (kind == 2 && !html)) { store<u8>(o++, c); i++; continue; }
    }
    bSkipTo(o);
    i = writeByte(p, n, i, html) + 1;
    o = bMark();
  }
  store<u8>(o++, 34);
  bSkipTo(o);
}

/** Writes byte i of a string being quoted, escaped as needed; returns the index of the last byte it consumed. */
function writeByte(p: usize, n: usize, i: usize, html: bool): usize {
  const c = <u32>load<u8>(p + i);
  if (c == 34 || c == 92) { out(92); out(c); return i; }
  if (c < 32) {
    if (c == 10) { out(92); out(110); } else if (c == 13) { out(92); out(114); } else if (c == 9) { out(92); out(116); }
    else writeU(c);
    return i;
  }
  if (html && (c == 60 || c == 62 || c == 38)) { writeU(c); return i; }
  if (html && c == 0xe2 && i + 2 < n && load<u8>(p + i + 1) == 0x80 && (load<u8>(p + i + 2) == 0xa8 || load<u8>(p + i + 2) == 0xa9)) {
    writeU(load<u8>(p + i + 2) == 0xa8 ? 0x2028 : 0x2029);
    return i + 2;
  }
  out(c);
  return i;
}

/** An ASCII literal without quotes or backslashes (so nothing to escape inside a key either). */
@inline function writeLit(s: string): void {
  bLit(s);
}

/** JSON: sets print as arrays, object keys that are not strings print as their JSON text in a string. */
export function writeJSON(v: usize): void {
  switch (tag(v)) {
    case T_NULL: writeLit("null"); return;
    case T_BOOLEAN: writeLit(boolVal(v) ? "true" : "false"); return;
    case T_NUMBER: {
      if (keyDepth > 0) { writeNumber(v); return; }
      writeNumber(v);
      return;
    }
    case T_STRING: writeQuoted(strPtr(v), strLen(v), true); return;
    case T_ARRAY:
    case T_SET: {
      out(91);
      const n = colLen(v);
      for (let i = 0; i < n; i++) { if (i > 0) out(44); writeJSON(arrGet(v, i)); }
      out(93);
      return;
    }
    case T_OBJECT: {
      out(123);
      const n = colLen(v);
      for (let i = 0; i < n; i++) {
        if (i > 0) out(44);
        const k = objKey(v, i);
        if (tag(k) == T_STRING) writeQuoted(strPtr(k), strLen(k), true);
        else { out(34); keyDepth++; writeJSON(k); keyDepth--; out(34); }
        out(58);
        writeJSON(objVal(v, i));
      }
      out(125);
      return;
    }
  }
}

// pretty printing (json.marshal_with_options): Go's MarshalIndent, with the prefix
// also in front of the first line as OPA writes it
let indPtr: usize = 0;
let indLen: usize = 0;
let prePtr: usize = 0;
let preLen: usize = 0;

function newline(depth: i32): void {
  bByte(10);
  bBytes(prePtr, preLen);
  for (let i = 0; i < depth; i++) bBytes(indPtr, indLen);
}

function writeIndented(v: usize, depth: i32): void {
  const t = tag(v);
  if (t == T_ARRAY || t == T_SET) {
    const n = colLen(v);
    if (n == 0) { out(91); out(93); return; }
    out(91);
    for (let i = 0; i < n; i++) {
      if (i > 0) out(44);
      newline(depth + 1);
      writeIndented(arrGet(v, i), depth + 1);
    }
    newline(depth);
    out(93);
    return;
  }
  if (t == T_OBJECT) {
    const n = colLen(v);
    if (n == 0) { out(123); out(125); return; }
    out(123);
    for (let i = 0; i < n; i++) {
      if (i > 0) out(44);
      newline(depth + 1);
      const k = objKey(v, i);
      if (tag(k) == T_STRING) writeQuoted(strPtr(k), strLen(k), true);
      else { out(34); keyDepth++; writeJSON(k); keyDepth--; out(34); }
      out(58); out(32);
      writeIndented(objVal(v, i), depth + 1);
    }
    newline(depth);
    out(125);
    return;
  }
  writeJSON(v);
}

/** Indented JSON text of v as a string value. */
export function jsonStringIndented(v: usize, prefix: usize, prefixLen: usize, indent: usize, indentLen: usize): usize {
  prePtr = prefix; preLen = prefixLen; indPtr = indent; indLen = indentLen;
  bBegin();
  bBytes(prefix, prefixLen);
  writeIndented(v, 0);
  const n = bLen();
  const p = bEnd();
  return mkString(p, n);
}

/** Rego syntax as OPA prints values: `{"a": 1}`, `[1, 2]`, `{1, 2}`, `set()`. */
export function writeRego(v: usize): void {
  switch (tag(v)) {
    case T_STRING: writeQuoted(strPtr(v), strLen(v), false); return;
    case T_ARRAY: {
      out(91);
      const n = colLen(v);
      for (let i = 0; i < n; i++) { if (i > 0) { out(44); out(32); } writeRego(arrGet(v, i)); }
      out(93);
      return;
    }
    case T_SET: {
      const n = colLen(v);
      if (n == 0) { writeLit("set()"); return; }
      out(123);
      for (let i = 0; i < n; i++) { if (i > 0) { out(44); out(32); } writeRego(setGet(v, i)); }
      out(125);
      return;
    }
    case T_OBJECT: {
      out(123);
      const n = colLen(v);
      for (let i = 0; i < n; i++) {
        if (i > 0) { out(44); out(32); }
        writeRego(objKey(v, i));
        out(58); out(32);
        writeRego(objVal(v, i));
      }
      out(125);
      return;
    }
  }
  writeJSON(v);
}

/** NUL-terminated JSON text of v ("null"-free: undefined prints nothing). */
export function dumpJSON(v: usize): usize {
  bBegin();
  if (v != 0) writeJSON(v);
  bByte(0);
  return bEnd();
}

export function dumpRego(v: usize): usize {
  bBegin();
  if (v != 0) writeRego(v);
  bByte(0);
  return bEnd();
}

/** JSON text of v as a string value (not NUL-terminated). */
export function jsonString(v: usize): usize {
  bBegin();
  writeJSON(v);
  const n = bLen();
  const p = bEnd();
  return mkString(p, n);
}

