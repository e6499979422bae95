/** rand.intn and uuid.rfc4122 (createHostBuiltins answers both once per evaluation for the same arguments). */
import { randomInt, randomUUID } from "node:crypto";
import { intOperand, stringOperand } from "./operands.js";

export function randIntn(str: unknown, n: unknown): number {
  stringOperand(str, 1);
  const max = Math.abs(intOperand(n, 2));
  return max === 0 ? 0 : randomInt(max);
}

export function uuidRfc4122(k: unknown): string {
  stringOperand(k, 1);
  return randomUUID();
}

export const randomBuiltins = {
  "rand.intn": randIntn,
  "uuid.rfc4122": uuidRfc4122,
};
