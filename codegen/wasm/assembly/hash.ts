// Hash of a value, consistent with `equal`: equal values hash the same (1 and 1.0
// included). Objects and sets hash independently of entry order, so an unsorted
// collection hashes as its sorted form does.
import {
  tag, boolVal, numRepr, intVal, floatVal, strLen, strPtr, colLen, rawData, N_INT, N_BIG,
  T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT,
} from "./value";

const SEED_NULL: u32 = 0x2545f491;
const SEED_BIG: u32 = 0x7f4a7c15; // big integers and floats outside the i64 range
const SEED_ARRAY: u32 = 0x9e3779b9;
const SEED_OBJECT: u32 = 0x85ebca6b;
const SEED_SET: u32 = 0xc2b2ae35;

@inline function fmix(h: u32): u32 {
  h ^= h >>> 16;
  h *= 0x85ebca6b;
  h ^= h >>> 13;
  h *= 0xc2b2ae35;
  h ^= h >>> 16;
  return h;
}

@inline function mix64(x: i64): u32 {
  return fmix(<u32>x ^ fmix(<u32>(x >>> 32) + 0x27d4eb2f));
}

/** Hash of n bytes at p. */
export function hashBytes(p: usize, n: usize): u32 {
  let h: u32 = <u32>n * 0x9e3779b1;
  let i: usize = 0;
  while (i + 4 <= n) {
    h = rotl<u32>(h ^ (load<u32>(p + i) * 0xcc9e2d51), 13) * 5 + 0xe6546b64;
    i += 4;
  }
  let t: u32 = 0;
  let s: u32 = 0;
  while (i < n) {
    t |= <u32>load<u8>(p + i) << s;
    s += 8;
    i++;
  }
  return fmix(h ^ (t * 0x1b873593));
}

// Numbers compare as f64 as soon as a float is involved (numCompare), so they hash
// by their f64 value; beyond +-2^63 (all big integers) they share one hash.
function hashNumber(v: usize): u32 {
  const r = numRepr(v);
  if (r == N_BIG) return SEED_BIG;
  let f = r == N_INT ? <f64>intVal(v) : floatVal(v);
  if (!(f > -9.223372036854775808e18 && f < 9.223372036854775808e18)) return SEED_BIG;
  if (f == 0) f = 0; // -0 == 0
  return mix64(reinterpret<i64>(f));
}

export function hashValue(v: usize): u32 {
  const t = tag(v);
  switch (t) {
    case T_STRING: return hashBytes(strPtr(v), strLen(v));
    case T_NUMBER: return hashNumber(v);
    case T_NULL: return SEED_NULL;
    case T_BOOLEAN: return boolVal(v) ? 0x1b873593 : 0x3c6ef372;
    case T_ARRAY: {
      const n = colLen(v);
      const d = rawData(v);
      let h = SEED_ARRAY ^ <u32>n;
      for (let i = 0; i < n; i++) h = (h ^ hashValue(<usize>load<u32>(d + (<usize>i << 2)))) * 0x01000193;
      return fmix(h);
    }
    case T_OBJECT: {
      const n = colLen(v);
      const d = rawData(v);
      let h = SEED_OBJECT ^ <u32>n;
      for (let i = 0; i < n; i++) {
        const p = d + (<usize>i << 3);
        h += fmix(hashValue(<usize>load<u32>(p)) * 3 + hashValue(<usize>load<u32>(p, 4)));
      }
      return fmix(h);
    }
    default: {
      const n = colLen(v);
      const d = rawData(v);
      let h = SEED_SET ^ <u32>n;
      for (let i = 0; i < n; i++) h += fmix(hashValue(<usize>load<u32>(d + (<usize>i << 2))) + 0x165667b1);
      return fmix(h);
    }
  }
}
