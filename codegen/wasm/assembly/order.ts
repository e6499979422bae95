// Restores key order in an object or set whose recent entries were appended out of
// order (F_UNSORTED): entries [0, sorted prefix) are in order, the rest in insertion
// order. Sorting happens in place; the index, if any, is rebuilt in its own table.
import { alloc, building } from "./memory";
import { tag, colLen, colFlags, rawData, F_UNSORTED, T_OBJECT } from "./value";
import { compare } from "./compare";
import { buildIndex } from "./keyindex";
import { mergeSort } from "./json-parse";

@inline function keyOf(d: usize, i: i32, sh: usize): usize {
  return <usize>load<u32>(d + (<usize>i << sh));
}

@inline function swap(d: usize, i: i32, j: i32, sh: usize): void {
  const a = d + (<usize>i << sh), b = d + (<usize>j << sh);
  if (sh == 3) { const t = load<u64>(a); store<u64>(a, load<u64>(b)); store<u64>(b, t); }
  else { const t = load<u32>(a); store<u32>(a, load<u32>(b)); store<u32>(b, t); }
}

function siftDown(d: usize, root: i32, n: i32, sh: usize): void {
  let r = root;
  while (true) {
    let c = (r << 1) + 1;
    if (c >= n) return;
    if (c + 1 < n && compare(keyOf(d, c, sh), keyOf(d, c + 1, sh)) < 0) c++;
    if (compare(keyOf(d, r, sh), keyOf(d, c, sh)) >= 0) return;
    swap(d, r, c, sh);
    r = c;
  }
}

/** In-place heap sort of n slots by their first word (keys are distinct). */
function heapSort(d: usize, n: i32, sh: usize): void {
  for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(d, i, n, sh);
  for (let end = n - 1; end > 0; end--) {
    swap(d, 0, end, sh);
    siftDown(d, 0, end, sh);
  }
}

/** Moves each entry of [s, n) into place in the sorted [0, s) by binary search. */
function insertTail(d: usize, s: i32, n: i32, sh: usize): void {
  const slot: usize = <usize>1 << sh;
  for (let i = s; i < n; i++) {
    const p = d + (<usize>i << sh);
    const entry = sh == 3 ? load<u64>(p) : <u64>load<u32>(p);
    const key = <usize>(<u32>entry);
    let lo = 0, hi = i - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(keyOf(d, mid, sh), key) < 0) lo = mid + 1; else hi = mid - 1;
    }
    const at = d + (<usize>lo << sh);
    if (lo < i) memory.copy(at + slot, at, <usize>(i - lo) << sh);
    if (sh == 3) store<u64>(at, entry); else store<u32>(at, <u32>entry);
  }
}

/** Sorts [s, n) with a temporary buffer and merges it with the sorted [0, s). */
function sortAndMerge(d: usize, s: i32, n: i32, sh: usize): void {
  mergeSort(d + (<usize>s << sh), n - s, <usize>1 << sh);
  if (s == 0) return;
  const tmp = alloc(<usize>s << sh);
  memory.copy(tmp, d, <usize>s << sh);
  let i = 0, j = s, k = 0;
  while (i < s && j < n) {
    const a = tmp + (<usize>i << sh), b = d + (<usize>j << sh);
    const takeB = compare(<usize>load<u32>(b), <usize>load<u32>(a)) < 0;
    const src = takeB ? b : a;
    const dst = d + (<usize>k << sh);
    if (sh == 3) store<u64>(dst, load<u64>(src)); else store<u32>(dst, load<u32>(src));
    if (takeB) j++; else i++;
    k++;
  }
  if (i < s) memory.copy(d + (<usize>k << sh), tmp + (<usize>i << sh), <usize>(s - i) << sh);
}

export function sortEntries(v: usize): void {
  store<u8>(v, colFlags(v) & ~F_UNSORTED, 1);
  const n = colLen(v);
  const s = load<i32>(v, 20);
  const d = rawData(v);
  const sh: usize = tag(v) == T_OBJECT ? 3 : 2;
  if (n - s <= 8) insertTail(d, s, n, sh);
  else if (building()) heapSort(d, n, sh);
  else sortAndMerge(d, s, n, sh);
  if (load<u32>(v, 16) != 0) buildIndex(v, false);
}
