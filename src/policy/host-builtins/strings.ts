/** strings.any_prefix_match / strings.any_suffix_match (string, array or set operands). */
import { stringsOperand } from "./operands.js";

export function anyPrefixMatch(search: unknown, base: unknown): boolean {
  const s = stringsOperand(search, 1);
  const b = stringsOperand(base, 2);
  return s.some((x) => b.some((p) => x.startsWith(p)));
}

export function anySuffixMatch(search: unknown, base: unknown): boolean {
  const s = stringsOperand(search, 1);
  const b = stringsOperand(base, 2);
  return s.some((x) => b.some((p) => x.endsWith(p)));
}

export const stringsBuiltins = {
  "strings.any_prefix_match": anyPrefixMatch,
  "strings.any_suffix_match": anySuffixMatch,
};
