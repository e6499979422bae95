// The parts of `input` each entrypoint can read (codegen/wasm/emit/input-paths.ts), as a
// table in the policy's static data; `opa_eval` parses only those parts of its input.
//
// Table: u32 entrypoint count N, then N u32 node addresses (0: the whole input).
// Node (the members the policy can look at when the value there is an object):
//   +0 u32 member count M, +4 u32 log2 of the hash table's size (0: no table), then M
//   entries of ENTRY_SIZE bytes from +8, in key order: +0 u32 key length, +4 u32 key
//   string cell (static), +8 u32 child node (0: the whole value), +12 u32 its index, +16 u64 the
//   key's first eight bytes, zero-padded; then the hash table: one byte per slot, an
//   entry's index plus one (0: empty), at memberHash(length, first eight bytes), probed
//   linearly.

/** Address of the table, set by the emitter (0: no table, every input is parsed whole). */
export let tg_input_paths: usize = 0;

export const ENTRY_SIZE: usize = 24;

/** The node of entrypoint `ep`, or 0 when its whole input is read (or there is no table). */
export function inputPathsNode(ep: i32): usize {
  const t = tg_input_paths;
  if (t == 0 || <u32>ep >= load<u32>(t)) return 0;
  return <usize>load<u32>(t + 4 + (<usize>ep << 2));
}

/** The hash of a key by its length and first eight bytes (the emitter computes the same). */
@inline function memberHash(n: usize, pre: u64): u32 {
  return (<u32>pre ^ (<u32>(pre >> 32) * 0x01000193) ^ <u32>n) * 0x9e3779b1;
}

/** The entry of `node` for the key with bytes [p, p+n), or 0 when the policy never reads it. */
export function findMember(node: usize, p: usize, n: usize): usize {
  const m = <usize>load<u32>(node);
  if (m == 0) return 0;
  // A key is followed by at least its closing quote and the parse stack (or lies in an
  // allocation rounded up to eight bytes): eight bytes can always be read.
  let pre = load<u64>(p);
  if (n < 8) pre &= (<u64>1 << (<u64>n << 3)) - 1;
  const first = node + 8;
  const bits = load<u32>(node, 4);
  if (bits != 0) {
    const table = first + m * ENTRY_SIZE;
    const mask = (<u32>1 << bits) - 1;
    let h = memberHash(n, pre) >> (32 - bits);
    while (true) {
      const k = <usize>load<u8>(table + <usize>h);
      if (k == 0) return 0;
      const e = first + (k - 1) * ENTRY_SIZE;
      if (sameKey(e, p, n, pre)) return e;
      h = (h + 1) & mask;
    }
  }
  const stop = first + m * ENTRY_SIZE;
  for (let e = first; e < stop; e += ENTRY_SIZE) if (sameKey(e, p, n, pre)) return e;
  return 0;
}

@inline function sameKey(e: usize, p: usize, n: usize, pre: u64): bool {
  if (<usize>load<u32>(e) != n || load<u64>(e, 16) != pre) return false;
  if (n <= 8) return true;
  // the rest eight bytes at a time, the last word overlapping its predecessor
  const k = <usize>load<u32>(<usize>load<u32>(e, 4), 8);
  let i: usize = 8;
  for (; i + 8 <= n; i += 8) if (load<u64>(k + i) != load<u64>(p + i)) return false;
  return i == n || load<u64>(k + n - 8) == load<u64>(p + n - 8);
}

/** The index of entry `e` in its node. */
@inline export function memberIndex(e: usize): usize {
  return <usize>load<u32>(e, 12);
}

@inline export function memberKey(e: usize): usize {
  return <usize>load<u32>(e, 4);
}

@inline export function memberChild(e: usize): usize {
  return <usize>load<u32>(e, 8);
}
