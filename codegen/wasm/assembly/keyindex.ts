// Hash index over the keys of an object or the elements of a set: open addressing
// with linear probing, slots (hash u32, storage position + 1 u32; 0 = empty), at
// most two thirds full. The block starts with the length and data address it indexes, so
// an index that a raw writer (growFor, setColLen) has outdated is recognised and
// rebuilt instead of trusted.
import { alloc } from "./memory";
import { tag, colLen, colFlags, rawData, F_EXT, T_OBJECT } from "./value";
import { hashValue } from "./hash";
import { equal } from "./compare";

/** Collections at least this long are indexed; shorter ones are binary-searched. */
export const INDEX_MIN: i32 = 16;

const HEAD: usize = 16; // +0 indexed length, +4 indexed data address, +8 mask

/** Hash of the key last given to `probe`. */
export let lastHash: u32 = 0;

@inline function slotShift(v: usize): usize {
  return tag(v) == T_OBJECT ? 3 : 2;
}

/** v's index when it matches v's present entries, else 0. */
export function indexOf(v: usize): usize {
  if ((colFlags(v) & F_EXT) == 0) return 0;
  const ix = <usize>load<u32>(v, 16);
  if (ix == 0) return 0;
  if (load<i32>(ix) != colLen(v) || <usize>load<u32>(ix, 4) != rawData(v)) return 0;
  return ix;
}

@inline function place(ix: usize, h: u32, pos: i32): void {
  const mask = load<u32>(ix, 8);
  let i = h & mask;
  while (load<u32>(ix + HEAD + (<usize>i << 3), 4) != 0) i = (i + 1) & mask;
  const s = ix + HEAD + (<usize>i << 3);
  store<u32>(s, h);
  store<u32>(s, <u32>pos + 1, 4);
}

function newTable(cap: u32): usize {
  const ix = alloc(HEAD + (<usize>cap << 3));
  memory.fill(ix + HEAD, 0, <usize>cap << 3);
  store<u32>(ix, 0);
  store<u32>(ix, 0, 4);
  store<u32>(ix, cap - 1, 8);
  store<u32>(ix, 0, 12);
  return ix;
}

/**
 * Indexes v's entries: in its present table when that is big enough (no
 * allocation), else in a new one when `mayAlloc`; returns the index or 0.
 */
export function buildIndex(v: usize, mayAlloc: bool): usize {
  const n = colLen(v);
  let ix = <usize>load<u32>(v, 16);
  if (ix != 0 && (<u64>load<u32>(ix, 8) + 1) * 2 < <u64>n * 3) ix = 0;
  if (ix != 0) {
    memory.fill(ix + HEAD, 0, (<usize>load<u32>(ix, 8) + 1) << 3);
  } else {
    if (!mayAlloc) return 0;
    let cap: u32 = 32;
    while (<u64>cap * 2 < <u64>n * 3 + 3) cap <<= 1;
    ix = newTable(cap);
  }
  const d = rawData(v);
  const sh = slotShift(v);
  for (let i = 0; i < n; i++) place(ix, hashValue(<usize>load<u32>(d + (<usize>i << sh))), i);
  store<i32>(ix, n);
  store<u32>(ix, <u32>d, 4);
  store<u32>(v, <u32>ix, 16);
  return ix;
}

/** Storage position of `key` in v through v's valid index ix, or -1. Sets lastHash. */
export function probe(v: usize, ix: usize, key: usize): i32 {
  const h = hashValue(key);
  lastHash = h;
  const mask = load<u32>(ix, 8);
  const d = rawData(v);
  const sh = slotShift(v);
  let i = h & mask;
  while (true) {
    const s = ix + HEAD + (<usize>i << 3);
    const p = load<u32>(s, 4);
    if (p == 0) return -1;
    if (load<u32>(s) == h) {
      const k = <usize>load<u32>(d + (<usize>(p - 1) << sh));
      if (k == key || equal(k, key)) return <i32>(p - 1);
    }
    i = (i + 1) & mask;
  }
}

/** Records the entry just appended (v's length counts it) with key hash h in ix, v's index before the append. */
export function indexAppend(v: usize, ix: usize, h: u32): void {
  const n = colLen(v);
  let mask = load<u32>(ix, 8);
  if (<u64>n * 3 > (<u64>mask + 1) * 2) {
    const nx = newTable((mask + 1) << 1);
    for (let i: u32 = 0; i <= mask; i++) {
      const s = ix + HEAD + (<usize>i << 3);
      const p = load<u32>(s, 4);
      if (p != 0) place(nx, load<u32>(s), <i32>p - 1);
    }
    ix = nx;
    store<u32>(v, <u32>nx, 16);
  }
  place(ix, h, n - 1);
  store<i32>(ix, n);
  store<u32>(ix, <u32>rawData(v), 4);
}

/** Gives the fresh copy c (same entries, same order as the indexed original) a copy of index ix. */
export function copyIndex(c: usize, ix: usize): void {
  const bytes = HEAD + ((<usize>load<u32>(ix, 8) + 1) << 3);
  const nx = alloc(bytes);
  memory.copy(nx, ix, bytes);
  store<u32>(nx, <u32>rawData(c), 4);
  store<u32>(c, <u32>nx, 16);
}
