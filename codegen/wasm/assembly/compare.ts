// OPA's total order over values (RUNTIME-API.md section 3).
import { tag, boolVal, strLen, strPtr, colLen, colData, T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET } from "./value";
import { numCompare } from "./number";

/** Bytewise order of strings, eight bytes at a time. */
export function strCompare(a: usize, b: usize): i32 {
  const la = strLen(a), lb = strLen(b);
  const n = la < lb ? la : lb;
  const pa = strPtr(a), pb = strPtr(b);
  let i: usize = 0;
  while (i + 8 <= n) {
    const x = load<u64>(pa + i), y = load<u64>(pb + i);
    if (x != y) return bswap<u64>(x) < bswap<u64>(y) ? -1 : 1;
    i += 8;
  }
  while (i < n) {
    const x = load<u8>(pa + i), y = load<u8>(pb + i);
    if (x != y) return x < y ? -1 : 1;
    i++;
  }
  return la < lb ? -1 : la > lb ? 1 : 0;
}

/** Same bytes: lengths first, then eight bytes at a time. */
export function strEqual(a: usize, b: usize): bool {
  const n = strLen(a);
  if (n != strLen(b)) return false;
  const pa = strPtr(a), pb = strPtr(b);
  if (pa == pb) return true;
  let i: usize = 0;
  while (i + 8 <= n) {
    if (load<u64>(pa + i) != load<u64>(pb + i)) return false;
    i += 8;
  }
  while (i < n) {
    if (load<u8>(pa + i) != load<u8>(pb + i)) return false;
    i++;
  }
  return true;
}

export function compare(a: usize, b: usize): i32 {
  if (a == b) return 0;
  if (a == 0) return -1;
  if (b == 0) return 1;
  const ta = tag(a), tb = tag(b);
  if (ta != tb) return ta < tb ? -1 : 1;
  switch (ta) {
    case T_NULL: return 0;
    case T_BOOLEAN: {
      const x = boolVal(a), y = boolVal(b);
      return x == y ? 0 : x ? 1 : -1;
    }
    case T_NUMBER: return numCompare(a, b);
    case T_STRING: return strCompare(a, b);
    case T_ARRAY:
    case T_SET: {
      const na = colLen(a), nb = colLen(b);
      const n = na < nb ? na : nb;
      const da = colData(a), db = colData(b);
      for (let i = 0; i < n; i++) {
        const c = compare(<usize>load<u32>(da + (<usize>i << 2)), <usize>load<u32>(db + (<usize>i << 2)));
        if (c != 0) return c;
      }
      return na < nb ? -1 : na > nb ? 1 : 0;
    }
    case T_OBJECT: {
      const na = colLen(a), nb = colLen(b);
      const n = na < nb ? na : nb;
      const da = colData(a), db = colData(b);
      for (let i = 0; i < n; i++) {
        const pa = da + (<usize>i << 3), pb = db + (<usize>i << 3);
        let c = compare(<usize>load<u32>(pa), <usize>load<u32>(pb));
        if (c != 0) return c;
        c = compare(<usize>load<u32>(pa, 4), <usize>load<u32>(pb, 4));
        if (c != 0) return c;
      }
      return na < nb ? -1 : na > nb ? 1 : 0;
    }
  }
  return 0;
}

export function equal(a: usize, b: usize): bool {
  if (a == b) return a != 0;
  if (a == 0 || b == 0) return false;
  const ta = tag(a);
  if (ta != tag(b)) return false;
  if (ta == T_STRING) return strEqual(a, b);
  if (ta >= T_ARRAY && colLen(a) != colLen(b)) return false;
  return compare(a, b) == 0;
}

