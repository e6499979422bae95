// Go's unicode.ToLower / unicode.ToUpper: one rune to one rune (Unicode's simple case mappings).
import { TO_LOWER, TO_LOWER_COUNT, TO_UPPER, TO_UPPER_COUNT } from "./case-table";

/** Binary search of the (lo, hi, stride, delta) ranges. */
function lookup(table: usize, count: i32, cp: u32): u32 {
  let lo = 0, hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = table + (<usize>mid << 4);
    if (cp < load<u32>(at)) hi = mid - 1;
    else if (cp > load<u32>(at, 4)) lo = mid + 1;
    else return (cp - load<u32>(at)) % load<u32>(at, 8) == 0 ? cp + load<u32>(at, 12) : cp;
  }
  return cp;
}

export function simpleCase(cp: u32, upper: bool): u32 {
  if (cp < 128) {
    if (upper) return cp >= 97 && cp <= 122 ? cp - 32 : cp;
    return cp >= 65 && cp <= 90 ? cp + 32 : cp;
  }
  return upper ? lookup(TO_UPPER, TO_UPPER_COUNT, cp) : lookup(TO_LOWER, TO_LOWER_COUNT, cp);
}
