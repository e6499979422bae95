// Strict JSON (RFC 8259) parsing into value cells. Invalid input yields 0, never a guess.
import { alloc } from "./memory";
import { mkInt, colLen, colData, setColLen, mkString, strLen, strPtr, mkArray, mkObject, arrPush, objPushSorted, NULL_CELL, TRUE_CELL, FALSE_CELL } from "./value";
import { scanNumber, parseNumber } from "./number";
import { compare, strCompare } from "./compare";
import { INDEX_MIN, buildIndex } from "./keyindex";
import { hashBytes } from "./hash";
import { ENTRY_SIZE, findMember, memberChild, memberIndex, memberKey } from "./input-paths";

const MAX_DEPTH = 512;

let src: usize = 0;
let end: usize = 0;
let pos: usize = 0;
let failed = false;
let depth = 0;

// The members of the arrays and objects being parsed, innermost last (u32 slots: an
// element, or a key and its value), in a region allocated per parse and sized by the
// text (a slot takes at least two bytes of it). A collection's data is then allocated
// once, at its final size, instead of growing by copies; one that does not fit any
// more moves to the heap and grows there.
const STACK_MAX_SLOTS: usize = 4096;
let stack: usize = 0;
let stackSlots: i32 = 0;
let sp: i32 = 0;

@inline function pushSlot(x: usize): void {
  store<u32>(stack + (<usize>sp << 2), <u32>x);
  sp++;
}

/** A collection of the `n` slots from `base` on (`slot` bytes per entry), the stack popped to `base`. */
function fromStack(c: usize, base: i32, slot: i32): usize {
  const bytes = <usize>(sp - base) << 2;
  const n = <i32>(bytes / <usize>slot);
  if (n > 0) {
    const d = alloc(bytes);
    memory.copy(d, stack + (<usize>base << 2), bytes);
    store<i32>(c, n, 8);
    store<u32>(c, <u32>d, 12);
    setColLen(c, n);
  }
  sp = base;
  return c;
}

@inline function peek(): u32 {
  return pos < end ? <u32>load<u8>(pos) : 0;
}

// The scanners below keep the position in a local while they loop (a global is a
// memory access on every use) and store it once.
@inline function skipWs(): void {
  if (pos >= end || load<u8>(pos) > 32) return;
  skipWsSlow();
}

function skipWsSlow(): void {
  let p = pos;
  const e = end;
  while (p < e) {
    const c = load<u8>(p);
    if (c == 32 || c == 9 || c == 10 || c == 13) p++; else break;
  }
  pos = p;
}

function expectWord(w0: u32, w1: u32, w2: u32, w3: u32, n: usize): bool {
  if (pos + n > end) return false;
  if (load<u8>(pos) != w0 || load<u8>(pos + 1) != w1 || load<u8>(pos + 2) != w2) return false;
  if (n == 4 && load<u8>(pos + 3) != w3) return false;
  pos += n;
  return true;
}

/** Parses one JSON text; 0 on any error (including trailing garbage). */
export function parseJSON(p: usize, n: usize): usize {
  return parseJSONProjected(p, n, 0);
}

/**
 * Parses one JSON text keeping, of the objects `node` describes (input-paths.ts), only
 * the members it lists; every other member is checked as strictly as a parse would
 * check it, then skipped. `node` 0 parses the whole text. 0 on any error.
 */
export function parseJSONProjected(p: usize, n: usize, node: usize): usize {
  src = p; end = p + n; pos = p; failed = false; depth = 0; sp = 0;
  const slots = (n >> 1) + 2;
  stackSlots = <i32>(slots < STACK_MAX_SLOTS ? slots : STACK_MAX_SLOTS);
  stack = alloc(<usize>stackSlots << 2);
  prefixes = alloc(<usize>SMALL_OBJECT << 3);
  keyCache = 0;
  if (n >= INTERN_FROM) {
    keyCache = alloc(<usize>KEY_SLOTS << 2);
    memory.fill(keyCache, 0, <usize>KEY_SLOTS << 2);
  }
  skipWs();
  const v = node == 0 ? parseValue() : parseProjected(node);
  if (failed || v == 0) return 0;
  skipWs();
  return pos == end ? v : 0;
}

function fail(): usize {
  failed = true;
  return 0;
}

function parseValue(): usize {
  const c = peek();
  switch (c) {
    case 123: return parseObject();
    case 91: return parseArray();
    case 34: return parseString();
    case 116: return expectWord(116, 114, 117, 101, 4) ? TRUE_CELL : fail();
    case 102: {
      if (pos + 5 <= end && load<u8>(pos + 4) == 101 && expectWord(102, 97, 108, 115, 4)) { pos++; return FALSE_CELL; }
      return fail();
    }
    case 110: return expectWord(110, 117, 108, 108, 4) ? NULL_CELL : fail();
  }
  // fast path: a plain integer of at most 18 digits, read in one pass
  let q = pos;
  const neg = c == 45;
  if (neg) q++;
  const ds = q;
  let iv: i64 = 0;
  let d: u32 = 0;
  while (q < end) {
    d = <u32>load<u8>(q) - 48;
    if (d >= 10) break;
    iv = iv * 10 + <i64>d;
    q++;
  }
  const nd = q - ds;
  if (nd > 0 && nd <= 18 && (nd == 1 || load<u8>(ds) != 48)) {
    const next = q < end ? <u32>load<u8>(q) : 0;
    if (next != 46 && (next | 32) != 101) { pos = q; return mkInt(neg ? -iv : iv); }
  }
  const n = scanNumber(pos, end - pos);
  if (n == 0) return fail();
  const v = parseNumber(pos, n);
  pos += n;
  return v != 0 ? v : fail();
}

function parseArray(): usize {
  if (++depth > MAX_DEPTH) return fail();
  pos++;
  const arr = mkArray(0);
  const base = sp;
  let spilled = false;
  skipWs();
  if (peek() == 93) { pos++; depth--; return arr; }
  while (true) {
    skipWs();
    const v = parseValue();
    if (v == 0) return fail();
    if (!spilled && sp >= stackSlots) { fromStack(arr, base, 4); spilled = true; }
    if (spilled) arrPush(arr, v); else pushSlot(v);
    skipWs();
    const c = peek();
    pos++;
    if (c == 44) continue;
    if (c == 93) break;
    return fail();
  }
  depth--;
  return spilled ? arr : fromStack(arr, base, 4);
}

function parseObject(): usize {
  if (++depth > MAX_DEPTH) return fail();
  pos++;
  const obj = mkObject(0);
  const base = sp;
  let spilled = false;
  skipWs();
  if (peek() == 125) { pos++; depth--; return obj; }
  while (true) {
    skipWs();
    if (peek() != 34) return fail();
    const k = parseString(true);
    if (k == 0) return fail();
    skipWs();
    if (peek() != 58) return fail();
    pos++;
    skipWs();
    const v = parseValue();
    if (v == 0) return fail();
    if (!spilled && sp + 2 > stackSlots) { fromStack(obj, base, 8); spilled = true; }
    if (spilled) objPushSorted(obj, k, v);
    else { pushSlot(k); pushSlot(v); }
    skipWs();
    const c = peek();
    pos++;
    if (c == 44) continue;
    if (c == 125) break;
    return fail();
  }
  depth--;
  if (!spilled) fromStack(obj, base, 8);
  sortObjectPairs(obj);
  // indexed now: a document kept below the SDK's saved heap pointer cannot get one later
  if (colLen(obj) >= INDEX_MIN) buildIndex(obj, true);
  return obj;
}

// The first eight bytes of each key of a small object, big-endian, so that most key
// comparisons while sorting are one integer comparison (a region of the parse's own).
const SMALL_OBJECT: i32 = 16;
let prefixes: usize = 0;

@inline function keyPrefix(k: usize): u64 {
  const n = strLen(k), p = strPtr(k);
  if (n >= 8) return bswap<u64>(load<u64>(p));
  let x: u64 = 0;
  for (let i: usize = 0; i < n; i++) x |= <u64>load<u8>(p + i) << (<u64>(56 - 8 * i));
  return x;
}

/** Key order of two pairs' keys given their prefixes (equal prefixes: the whole keys decide). */
@inline function prefixCompare(pa: u64, a: usize, pb: u64, b: usize): i32 {
  if (pa != pb) return pa < pb ? -1 : 1;
  return strCompare(a, b);
}

@inline function pairKey(d: usize, i: i32): usize {
  return <usize>load<u32>(d + (<usize>i << 3));
}

@inline function prefixAt(i: i32): u64 {
  return load<u64>(prefixes + (<usize>i << 3));
}

/** Sorts appended pairs by key (stable) and keeps the last of equal keys, as Go does. Keys are strings (parsed). */
function sortObjectPairs(obj: usize): void {
  const n = colLen(obj);
  if (n < 2) return;
  const d = colData(obj);
  if (n <= SMALL_OBJECT) {
    for (let i = 0; i < n; i++) store<u64>(prefixes + (<usize>i << 3), keyPrefix(pairKey(d, i)));
    let sorted = true;
    for (let i = 1; i < n; i++) {
      if (prefixCompare(prefixAt(i - 1), pairKey(d, i - 1), prefixAt(i), pairKey(d, i)) >= 0) { sorted = false; break; }
    }
    if (sorted) return;
    // stable insertion sort in place, prefixes moved along
    for (let i = 1; i < n; i++) {
      const pair = load<u64>(d + (<usize>i << 3));
      const pre = prefixAt(i);
      const key = <usize>(<u32>pair);
      let j = i - 1;
      while (j >= 0 && prefixCompare(prefixAt(j), pairKey(d, j), pre, key) > 0) {
        store<u64>(d + (<usize>(j + 1) << 3), load<u64>(d + (<usize>j << 3)));
        store<u64>(prefixes + (<usize>(j + 1) << 3), prefixAt(j));
        j--;
      }
      store<u64>(d + (<usize>(j + 1) << 3), pair);
      store<u64>(prefixes + (<usize>(j + 1) << 3), pre);
    }
    // dedupe: keep the last pair of each run of equal keys
    let w = 0;
    for (let i = 0; i < n; i++) {
      if (i + 1 < n && prefixCompare(prefixAt(i), pairKey(d, i), prefixAt(i + 1), pairKey(d, i + 1)) == 0) continue;
      if (w != i) store<u64>(d + (<usize>w << 3), load<u64>(d + (<usize>i << 3)));
      w++;
    }
    setColLen(obj, w);
    return;
  }
  let sorted = true;
  for (let i = 1; i < n; i++) {
    if (strCompare(pairKey(d, i - 1), pairKey(d, i)) >= 0) { sorted = false; break; }
  }
  if (sorted) return;
  mergeSort(d, n, 8);
  // dedupe: keep the last pair of each run of equal keys
  let w = 0;
  for (let i = 0; i < n; i++) {
    if (i + 1 < n && strCompare(pairKey(d, i), pairKey(d, i + 1)) == 0) continue;
    if (w != i) store<u64>(d + (<usize>w << 3), load<u64>(d + (<usize>i << 3)));
    w++;
  }
  setColLen(obj, w);
}

/** Stable merge sort of n slots (4 or 8 bytes, the first u32 is the value compared). */
export function mergeSort(d: usize, n: i32, slot: usize): void {
  if (n < 2) return;
  const tmp = alloc(<usize>n * slot);
  for (let width = 1; width < n; width <<= 1) {
    for (let lo = 0; lo < n; lo += width << 1) {
      let mid = lo + width; if (mid > n) mid = n;
      let hi = lo + (width << 1); if (hi > n) hi = n;
      let i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        const a = d + <usize>i * slot, b = d + <usize>j * slot;
        if (compare(load<u32>(b), load<u32>(a)) < 0) { copySlot(tmp + <usize>k * slot, b, slot); j++; }
        else { copySlot(tmp + <usize>k * slot, a, slot); i++; }
        k++;
      }
      while (i < mid) { copySlot(tmp + <usize>k * slot, d + <usize>i * slot, slot); i++; k++; }
      while (j < hi) { copySlot(tmp + <usize>k * slot, d + <usize>j * slot, slot); j++; k++; }
    }
    memory.copy(d, tmp, <usize>n * slot);
  }
}

@inline function copySlot(dst: usize, s: usize, slot: usize): void {
  if (slot == 8) store<u64>(dst, load<u64>(s)); else store<u32>(dst, load<u32>(s));
}

function hexVal(c: u32): i32 {
  if (c - 48 < 10) return <i32>(c - 48);
  const l = c | 32;
  if (l - 97 < 6) return <i32>(l - 87);
  return -1;
}

function hex4(p: usize): i32 {
  if (p + 4 > end) return -1;
  let v = 0;
  for (let i: usize = 0; i < 4; i++) {
    const h = hexVal(load<u8>(p + i));
    if (h < 0) return -1;
    v = (v << 4) | h;
  }
  return v;
}

// Object keys repeat across the objects of a document: in a large document a short
// key without escapes gets one cell (a direct-mapped cache for this parse), so
// equal keys share a cell.
const KEY_SLOTS: u32 = 1024;
const INTERN_FROM: usize = 8192; // documents at least this long
let keyCache: usize = 0; // KEY_SLOTS cells, or 0

function keyCell(p: usize, n: usize): usize {
  if (keyCache == 0 || n > 32) return mkString(p, n);
  const slot = keyCache + (<usize>(hashBytes(p, n) & (KEY_SLOTS - 1)) << 2);
  const c = <usize>load<u32>(slot);
  if (c != 0 && strLen(c) == n && memory.compare(strPtr(c), p, n) == 0) return c;
  const k = mkString(p, n);
  store<u32>(slot, <u32>k);
  return k;
}

// The string scanString() last read: its bytes [strStart, strStop), whether it has escapes.
let strStart: usize = 0;
let strStop: usize = 0;
let strEscapes = false;

/** Reads a string from its opening quote to past its closing one; false when it is unterminated or holds a control character. */
function scanString(): bool {
  const q = scanStringAt(pos, end);
  if (q == 0) return false;
  pos = q;
  return true;
}

/** scanString() from the opening quote at p (text ends at e): the position after the closing quote, or 0. */
function scanStringAt(p0: usize, e: usize): usize {
  const start = p0 + 1;
  let p = start;
  let escapes = false;
  while (true) {
    // eight bytes at a time: the lowest byte the test flags is the first quote,
    // backslash or control character (a false positive only ever lies above a true one)
    if (p + 8 <= e) {
      const x = load<u64>(p);
      const q = x ^ 0x2222222222222222, b = x ^ 0x5c5c5c5c5c5c5c5c;
      const t = (((q - 0x0101010101010101) & ~q) | ((b - 0x0101010101010101) & ~b) | ((x - 0x2020202020202020) & ~x)) & 0x8080808080808080;
      if (t == 0) { p += 8; continue; }
      p += <usize>(ctz(t) >> 3);
    } else if (p >= e) return 0;
    const c = load<u8>(p);
    if (c == 34) break;
    if (c == 92) { escapes = true; p += 2; continue; }
    if (c < 32) return 0;
    p++;
  }
  strStart = start; strStop = p; strEscapes = escapes;
  return p + 1;
}

/** The first position from p on (before e) that is not JSON whitespace. */
@inline function wsFrom(p: usize, e: usize): usize {
  while (p < e) {
    const c = load<u8>(p);
    if (c > 32 || (c != 32 && c != 9 && c != 10 && c != 13)) break;
    p++;
  }
  return p;
}

function parseString(key: bool = false): usize {
  if (!scanString()) return fail();
  const start = strStart, stop = strStop;
  if (!strEscapes) return key ? keyCell(start, stop - start) : mkString(start, stop - start);
  const out = unescape(start, stop);
  return out != 0 ? mkString(out, unescapedLen) : fail();
}

let unescapedLen: usize = 0;

/** The bytes of [start, stop) with escapes decoded, in fresh memory (length in unescapedLen); 0 for an invalid escape. */
function unescape(start: usize, stop: usize): usize {
  // never longer than the source
  const out = alloc(stop - start);
  let o = out;
  let i = start;
  while (i < stop) {
    let c = <u32>load<u8>(i);
    if (c != 92) { store<u8>(o++, <u8>c); i++; continue; }
    i++;
    c = <u32>load<u8>(i);
    i++;
    switch (c) {
      case 34: store<u8>(o++, 34); break;
      case 92: store<u8>(o++, 92); break;
      case 47: store<u8>(o++, 47); break;
      case 98: store<u8>(o++, 8); break;
      case 102: store<u8>(o++, 12); break;
      case 110: store<u8>(o++, 10); break;
      case 114: store<u8>(o++, 13); break;
      case 116: store<u8>(o++, 9); break;
      case 117: {
        let cp = hex4(i);
        if (cp < 0) return 0;
        i += 4;
        if (cp >= 0xd800 && cp < 0xdc00) {
          // a high surrogate needs its low half; alone it becomes U+FFFD as in Go
          let lo = -1;
          if (i + 6 <= stop && load<u8>(i) == 92 && load<u8>(i + 1) == 117) lo = hex4(i + 2);
          if (lo >= 0xdc00 && lo < 0xe000) { cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00); i += 6; }
          else cp = 0xfffd;
        } else if (cp >= 0xdc00 && cp < 0xe000) cp = 0xfffd;
        o = putUtf8(o, <u32>cp);
        break;
      }
      default: return 0;
    }
  }
  unescapedLen = o - out;
  return out;
}

/** Whether every escape in [start, stop) is one unescape() decodes (it accepts exactly these). */
function validEscapes(start: usize, stop: usize): bool {
  let i = start;
  while (i < stop) {
    if (load<u8>(i) != 92) { i++; continue; }
    const c = <u32>load<u8>(i + 1);
    i += 2;
    if (c == 117) {
      if (hex4(i) < 0) return false;
      i += 4;
    } else if (c != 34 && c != 92 && c != 47 && c != 98 && c != 102 && c != 110 && c != 114 && c != 116) return false;
  }
  return true;
}

// ---- projected parsing: members nobody reads are checked, not built

/** A value at `node`: an object keeps the members the node lists, anything else is parsed whole. */
function parseProjected(node: usize): usize {
  return peek() == 123 ? parseObjectProjected(node) : parseValue();
}

// A projected object's values go to one slot per member of its node, whose entries
// are in key order (the emitter sorts them by their UTF-8 bytes): the pairs come out
// sorted, a repeated key keeps its last value, and nothing is sorted or deduplicated.
function parseObjectProjected(node: usize): usize {
  if (++depth > MAX_DEPTH) return fail();
  const e = end;
  const obj = mkObject(0);
  const m = <usize>load<u32>(node);
  const first = node + 8;
  const slots = alloc(m << 2);
  memory.fill(slots, 0, m << 2);
  // the position stays in a local here; pos is set around the calls that read it
  let p = wsFrom(pos + 1, e);
  if (p < e && load<u8>(p) == 125) { pos = p + 1; depth--; return obj; }
  let kept = 0;
  while (true) {
    p = wsFrom(p, e);
    if (p >= e || load<u8>(p) != 34) return fail();
    p = scanStringAt(p, e);
    if (p == 0) return fail();
    let kp = strStart, kn = strStop - strStart;
    if (strEscapes) {
      kp = unescape(strStart, strStop);
      if (kp == 0) return fail();
      kn = unescapedLen;
    }
    const en = findMember(node, kp, kn);
    p = wsFrom(p, e);
    if (p >= e || load<u8>(p) != 58) return fail();
    p = wsFrom(p + 1, e);
    if (en == 0) {
      pos = p;
      if (!skipValue()) return fail();
      p = pos;
    } else {
      const child = memberChild(en);
      let v: usize = 0;
      if (child == 0 && p < e && load<u8>(p) == 34) {
        // a string member read whole, without the way through parseValue
        p = scanStringAt(p, e);
        if (p == 0) return fail();
        if (!strEscapes) v = mkString(strStart, strStop - strStart);
        else {
          const out = unescape(strStart, strStop);
          if (out == 0) return fail();
          v = mkString(out, unescapedLen);
        }
      } else {
        pos = p;
        v = child == 0 ? parseValue() : parseProjected(child);
        if (v == 0) return fail();
        p = pos;
      }
      const slot = slots + (memberIndex(en) << 2);
      if (load<u32>(slot) == 0) kept++;
      store<u32>(slot, <u32>v);
    }
    p = wsFrom(p, e);
    if (p >= e) return fail();
    const c = load<u8>(p);
    p++;
    if (c == 44) continue;
    if (c == 125) break;
    return fail();
  }
  pos = p;
  depth--;
  if (kept > 0) {
    const d = alloc(<usize>kept << 3);
    let o = d;
    for (let k: usize = 0; k < m; k++) {
      const v = load<u32>(slots + (k << 2));
      if (v == 0) continue;
      store<u32>(o, <u32>memberKey(first + k * ENTRY_SIZE));
      store<u32>(o, v, 4);
      o += 8;
    }
    store<i32>(obj, kept, 8);
    store<u32>(obj, <u32>d, 12);
    setColLen(obj, kept);
    if (kept >= INDEX_MIN) buildIndex(obj, true);
  }
  return obj;
}

/** Moves past one JSON value, checking it exactly as parseValue() would; false where parseValue() fails. */
function skipValue(): bool {
  const c = peek();
  switch (c) {
    case 123: return skipObject();
    case 91: return skipArray();
    case 34: return scanString() && (!strEscapes || validEscapes(strStart, strStop));
    case 116: return expectWord(116, 114, 117, 101, 4);
    case 102: {
      if (pos + 5 <= end && load<u8>(pos + 4) == 101 && expectWord(102, 97, 108, 115, 4)) { pos++; return true; }
      return false;
    }
    case 110: return expectWord(110, 117, 108, 108, 4);
  }
  const n = scanNumber(pos, end - pos);
  if (n == 0) return false;
  pos += n;
  return true;
}

function skipArray(): bool {
  if (++depth > MAX_DEPTH) return false;
  pos++;
  skipWs();
  if (peek() == 93) { pos++; depth--; return true; }
  while (true) {
    skipWs();
    if (!skipValue()) return false;
    skipWs();
    const c = peek();
    pos++;
    if (c == 44) continue;
    if (c == 93) break;
    return false;
  }
  depth--;
  return true;
}

function skipObject(): bool {
  if (++depth > MAX_DEPTH) return false;
  pos++;
  skipWs();
  if (peek() == 125) { pos++; depth--; return true; }
  while (true) {
    skipWs();
    if (peek() != 34 || !scanString()) return false;
    if (strEscapes && !validEscapes(strStart, strStop)) return false;
    skipWs();
    if (peek() != 58) return false;
    pos++;
    skipWs();
    if (!skipValue()) return false;
    skipWs();
    const c = peek();
    pos++;
    if (c == 44) continue;
    if (c == 125) break;
    return false;
  }
  depth--;
  return true;
}

export function putUtf8(o: usize, cp: u32): usize {
  if (cp < 0x80) { store<u8>(o, <u8>cp); return o + 1; }
  if (cp < 0x800) { store<u8>(o, <u8>(0xc0 | (cp >> 6))); store<u8>(o + 1, <u8>(0x80 | (cp & 63))); return o + 2; }
  if (cp < 0x10000) {
    store<u8>(o, <u8>(0xe0 | (cp >> 12))); store<u8>(o + 1, <u8>(0x80 | ((cp >> 6) & 63))); store<u8>(o + 2, <u8>(0x80 | (cp & 63)));
    return o + 3;
  }
  store<u8>(o, <u8>(0xf0 | (cp >> 18))); store<u8>(o + 1, <u8>(0x80 | ((cp >> 12) & 63)));
  store<u8>(o + 2, <u8>(0x80 | ((cp >> 6) & 63))); store<u8>(o + 3, <u8>(0x80 | (cp & 63)));
  return o + 4;
}

