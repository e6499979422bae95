// Bump allocator over the imported memory. The SDK saves and restores the heap
// pointer around evaluations, so nothing is ever freed individually.
import { opa_abort } from "./env";

@external("toolgate", "heap_base")
declare function tg_heap_base(): usize;

let heapPtr: usize = 0;
let heapLimit: usize = 0;
// Cells below the epoch may outlive the next heap reset (static data, data the SDK
// keeps below its saved pointer): nothing allocated later may be attached to them.
let epoch: usize = 0;

@inline function align8(n: usize): usize {
  return (n + 7) & ~(<usize>7);
}

function initHeap(): void {
  heapPtr = (tg_heap_base() + 15) & ~(<usize>15);
  heapLimit = (<usize>memory.size()) << 16;
  // Static data lies below the heap: it is never young, even for a host that evaluates
  // before it first saves or sets the heap pointer.
  epoch = heapPtr;
}

/** Makes sure memory reaches `end`, growing it when needed. */
export function ensureMemory(end: usize): void {
  let cur = (<usize>memory.size()) << 16;
  if (end > cur) {
    let pages = <i32>((end - cur + 0xffff) >>> 16);
    if (memory.grow(pages) < 0) opa_abort(OOM);
    cur = (<usize>memory.size()) << 16;
  }
  heapLimit = cur;
}

const OOM = memory.data<u8>([111, 117, 116, 32, 111, 102, 32, 109, 101, 109, 111, 114, 121, 0]); // "out of memory"

export function alloc(n: usize): usize {
  if (heapPtr == 0) initHeap();
  const p = heapPtr;
  const end = align8(p + n);
  if (end > heapLimit) ensureMemory(end);
  heapPtr = end;
  return p;
}

/** The heap pointer, for a caller that may reset to it later (so it becomes the epoch). */
export function heapGet(): usize {
  if (heapPtr == 0) initHeap();
  epoch = heapPtr;
  return heapPtr;
}

export function heapSet(p: usize): void {
  if (heapPtr == 0) initHeap();
  heapPtr = align8(p);
  if (heapPtr > heapLimit) ensureMemory(heapPtr);
  epoch = heapPtr;
  bActive = false;
}

/**
 * Whether the cell at c is the module's static data (below the heap): it is never freed
 * and never rewritten, so any value may point at it for as long as the module lives.
 */
@inline export function isStatic(c: usize): bool {
  return c < tg_heap_base();
}

/** Whether the cell at c was allocated after the last heap save or reset. */
@inline export function isYoung(c: usize): bool {
  return c >= epoch;
}

// ---- Builder: appends bytes at the top of the heap. No allocation may happen
// between bBegin and bEnd (the bytes would be overwritten).
let bStart: usize = 0;
let bPos: usize = 0;
let bActive = false;

/** Whether a builder is open (allocation is forbidden). */
@inline export function building(): bool {
  return bActive;
}

export function bBegin(): void {
  if (heapPtr == 0) initHeap();
  bActive = true;
  bStart = heapPtr;
  bPos = heapPtr;
}

@inline export function bByte(c: u32): void {
  if (bPos + 1 > heapLimit) ensureMemory(bPos + 1);
  store<u8>(bPos, <u8>c);
  bPos++;
}

export function bBytes(src: usize, n: usize): void {
  if (bPos + n > heapLimit) ensureMemory(bPos + n);
  memory.copy(bPos, src, n);
  bPos += n;
}

/** Appends an ASCII AssemblyScript string literal. */
export function bLit(s: string): void {
  const p = changetype<usize>(s);
  const n = <usize>s.length;
  if (bPos + n > heapLimit) ensureMemory(bPos + n);
  for (let i: usize = 0; i < n; i++) store<u8>(bPos + i, <u8>load<u16>(p + (i << 1)));
  bPos += n;
}

/** Makes room for n more bytes; returns the write position (bytes written there are taken with bSkipTo). */
export function bReserve(n: usize): usize {
  if (bPos + n > heapLimit) ensureMemory(bPos + n);
  return bPos;
}

/** Moves the builder's end to p (past bytes stored directly after bReserve). */
@inline export function bSkipTo(p: usize): void {
  bPos = p;
}

/** Current end of the builder (a mark to pad from). */
export function bMark(): usize {
  return bPos;
}

/** Inserts n copies of byte c at address `at` inside the builder, shifting what follows. */
export function bPadAt(at: usize, n: i32, c: u8): void {
  const k = <usize>n;
  if (bPos + k > heapLimit) ensureMemory(bPos + k);
  memory.copy(at + k, at, bPos - at);
  memory.fill(at, c, k);
  bPos += k;
}

export function bLen(): usize {
  return bPos - bStart;
}

/** Finishes the builder; returns its start address (length: bLen() before the call). */
export function bEnd(): usize {
  bActive = false;
  heapPtr = align8(bPos);
  return bStart;
}
