/** bits.* over integers (exact beyond 2^53 when the result is, via bigint). */
import { exactInt, type HostNumber } from "./exact.js";
import { builtinError, operandError } from "./errors.js";
import { intOperand } from "./operands.js";

function shift(b: bigint): bigint {
  if (b < 0n) throw operandError(2, "must be an unsigned integer number but got a negative integer");
  // Beyond this the result is larger than any document a policy can hold.
  if (b > 65536n) throw builtinError("shift too large");
  return b;
}

const op = (f: (a: bigint, b: bigint) => bigint) => (a: unknown, b: unknown): HostNumber => exactInt(f(BigInt(intOperand(a, 1)), BigInt(intOperand(b, 2))));

export const bitsBuiltins = {
  "bits.or": op((a, b) => a | b),
  "bits.and": op((a, b) => a & b),
  "bits.xor": op((a, b) => a ^ b),
  "bits.lsh": op((a, b) => a << shift(b)),
  "bits.rsh": op((a, b) => a >> shift(b)),
  "bits.negate": (a: unknown): HostNumber => exactInt(~BigInt(intOperand(a, 1))),
};
