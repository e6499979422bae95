// Value cells. Layout is part of the contract (RUNTIME-API.md section 2).
import { alloc } from "./memory";
import { sortEntries } from "./order";

export const T_NULL: u8 = 1;
export const T_BOOLEAN: u8 = 2;
export const T_NUMBER: u8 = 3;
export const T_STRING: u8 = 4;
export const T_ARRAY: u8 = 5;
export const T_OBJECT: u8 = 6;
export const T_SET: u8 = 7;

export const N_INT: u8 = 1;
export const N_FLOAT: u8 = 2;
export const N_BIG: u8 = 3;

export const NULL_CELL = memory.data<u8>([1, 0, 0, 0, 0, 0, 0, 0], 8);
export const FALSE_CELL = memory.data<u8>([2, 0, 0, 0, 0, 0, 0, 0], 8);
export const TRUE_CELL = memory.data<u8>([2, 1, 0, 0, 0, 0, 0, 0], 8);

@inline export function tag(v: usize): u8 {
  return load<u8>(v);
}

// ---- scalars
@inline export function mkBool(b: bool): usize {
  return b ? TRUE_CELL : FALSE_CELL;
}
@inline export function boolVal(v: usize): bool {
  return load<u8>(v, 1) != 0;
}

export function mkInt(i: i64): usize {
  const c = alloc(16);
  store<u8>(c, T_NUMBER);
  store<u8>(c, N_INT, 1);
  store<i64>(c, i, 8);
  return c;
}
export function mkFloat(f: f64): usize {
  const c = alloc(16);
  store<u8>(c, T_NUMBER);
  store<u8>(c, N_FLOAT, 1);
  store<f64>(c, f, 8);
  return c;
}
/** Big integer: canonical decimal text (optional '-', no leading zeros) outside i64. */
export function mkBig(ptr: usize, len: usize): usize {
  const c = alloc(16);
  store<u8>(c, T_NUMBER);
  store<u8>(c, N_BIG, 1);
  store<u32>(c, <u32>ptr, 8);
  store<u32>(c, <u32>len, 12);
  return c;
}
@inline export function numRepr(v: usize): u8 {
  return load<u8>(v, 1);
}
@inline export function intVal(v: usize): i64 {
  return load<i64>(v, 8);
}
@inline export function floatVal(v: usize): f64 {
  return load<f64>(v, 8);
}
@inline export function bigPtr(v: usize): usize {
  return <usize>load<u32>(v, 8);
}
@inline export function bigLen(v: usize): usize {
  return <usize>load<u32>(v, 12);
}

export function mkString(ptr: usize, len: usize): usize {
  const c = alloc(16);
  store<u8>(c, T_STRING);
  store<u32>(c, <u32>len, 4);
  store<u32>(c, <u32>ptr, 8);
  return c;
}
@inline export function strLen(v: usize): usize {
  return <usize>load<u32>(v, 4);
}
@inline export function strPtr(v: usize): usize {
  return <usize>load<u32>(v, 8);
}

// ---- collections: +4 len, +8 cap, +12 data pointer. Objects and sets made here
// are 24-byte cells (flag F_EXT): +16 address of their hash index (0: none), +20
// length of the sorted prefix while F_UNSORTED is set. Cells made elsewhere (static
// data, host writers) are 16 bytes with flags 0: sorted, no index.
export const F_EXT: u8 = 1;
export const F_UNSORTED: u8 = 2;

@inline export function colFlags(v: usize): u8 {
  return load<u8>(v, 1);
}
@inline export function colLen(v: usize): i32 {
  return load<i32>(v, 4);
}
@inline export function colCap(v: usize): i32 {
  return load<i32>(v, 8);
}
/** Entries in storage order: insertion order after the sorted prefix while F_UNSORTED is set. */
@inline export function rawData(v: usize): usize {
  return <usize>load<u32>(v, 12);
}
/** Entries in sorted order (sorts pending appends first; never allocates). */
@inline export function colData(v: usize): usize {
  if (load<u8>(v, 1) & F_UNSORTED) sortEntries(v);
  return <usize>load<u32>(v, 12);
}
@inline export function setColLen(v: usize, n: i32): void {
  store<i32>(v, n, 4);
}

function mkCollection(t: u8, cap: i32, slot: i32, ext: bool): usize {
  const c = alloc(ext ? 24 : 16);
  store<u32>(c, <u32>t | (ext ? <u32>F_EXT << 8 : 0));
  store<i32>(c, 0, 4);
  store<i32>(c, cap, 8);
  store<u32>(c, cap > 0 ? <u32>alloc(<usize>(cap * slot)) : 0, 12);
  if (ext) store<u64>(c, 0, 16);
  return c;
}
export function mkArray(cap: i32): usize {
  return mkCollection(T_ARRAY, cap, 4, false);
}
export function mkObject(cap: i32): usize {
  return mkCollection(T_OBJECT, cap, 8, true);
}
export function mkSet(cap: i32): usize {
  return mkCollection(T_SET, cap, 4, true);
}

/** Makes room for one more slot; returns the (raw) data pointer. */
export function growFor(v: usize, slot: i32): usize {
  const n = colLen(v);
  let cap = colCap(v);
  let data = rawData(v);
  if (n < cap) return data;
  cap = cap < 4 ? 4 : cap * 2;
  const nd = alloc(<usize>(cap * slot));
  if (n > 0) memory.copy(nd, data, <usize>(n * slot));
  store<i32>(v, cap, 8);
  store<u32>(v, <u32>nd, 12);
  return nd;
}

// arrays (also reads sets in order)
@inline export function arrGet(v: usize, i: i32): usize {
  return <usize>load<u32>(colData(v) + (<usize>i << 2));
}
export function arrPush(v: usize, x: usize): void {
  const d = growFor(v, 4);
  const n = colLen(v);
  store<u32>(d + (<usize>n << 2), <u32>x);
  setColLen(v, n + 1);
}

// objects: (key, value) pairs, in key order through these accessors
@inline export function objKey(v: usize, i: i32): usize {
  return <usize>load<u32>(colData(v) + (<usize>i << 3));
}
@inline export function objVal(v: usize, i: i32): usize {
  return <usize>load<u32>(colData(v) + (<usize>i << 3), 4);
}
@inline export function objSetVal(v: usize, i: i32, x: usize): void {
  store<u32>(colData(v) + (<usize>i << 3), <u32>x, 4);
}
/** Appends a pair without keeping order: only for callers that append in key order. */
export function objPushSorted(v: usize, k: usize, x: usize): void {
  const d = growFor(v, 8);
  const n = colLen(v);
  const p = d + (<usize>n << 3);
  store<u32>(p, <u32>k);
  store<u32>(p, <u32>x, 4);
  setColLen(v, n + 1);
}

// sets: elements, in order through this accessor
@inline export function setGet(v: usize, i: i32): usize {
  return <usize>load<u32>(colData(v) + (<usize>i << 2));
}
