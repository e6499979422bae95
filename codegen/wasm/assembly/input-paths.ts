// The parts of `input` each entrypoint can read (codegen/wasm/emit/input-paths.ts), as a
// table in the policy's static data; `opa_eval` parses only those parts of its input.
//
// Table: u32 entrypoint count N, then N u32 node addresses (0: the whole input).
// Node (the members the policy can look at when the value there is an object):
//   +0 u32 member count M, +4 unused, then M entries of ENTRY_SIZE bytes from +8:
//   +0 u32 key length, +4 u32 key string cell (static), +8 u32 child node (0: the
//   whole value), +12 unused, +16 u64 the key's first eight bytes, zero-padded.

/** Address of the table, set by the emitter (0: no table, every input is parsed whole). */
export let tg_input_paths: usize = 0;

export const ENTRY_SIZE: usize = 24;

/** The node of entrypoint `ep`, or 0 when its whole input is read (or there is no table). */
export function inputPathsNode(ep: i32): usize {
  const t = tg_input_paths;
  if (t == 0 || <u32>ep >= load<u32>(t)) return 0;
  return <usize>load<u32>(t + 4 + (<usize>ep << 2));
}

/** The entry of `node` for the key with bytes [p, p+n), or 0 when the policy never reads it. */
export function findMember(node: usize, p: usize, n: usize): usize {
  const m = <usize>load<u32>(node);
  if (m == 0) return 0;
  let pre: u64 = 0;
  if (n >= 8) pre = load<u64>(p);
  else for (let i: usize = 0; i < n; i++) pre |= <u64>load<u8>(p + i) << (<u64>(i << 3));
  let e = node + 8;
  const stop = e + m * ENTRY_SIZE;
  for (; e < stop; e += ENTRY_SIZE) {
    if (<usize>load<u32>(e) != n || load<u64>(e, 16) != pre) continue;
    if (n <= 8) return e;
    const k = <usize>load<u32>(e, 4);
    if (memory.compare(<usize>load<u32>(k, 8) + 8, p + 8, n - 8) == 0) return e;
  }
  return 0;
}

@inline export function memberKey(e: usize): usize {
  return <usize>load<u32>(e, 4);
}

@inline export function memberChild(e: usize): usize {
  return <usize>load<u32>(e, 8);
}
