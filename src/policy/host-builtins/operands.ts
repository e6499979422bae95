/** Operand readers that raise OPA's operand type errors. */
import { operandError, operandTypeError, typeName } from "./errors.js";

export function stringOperand(v: unknown, pos: number): string {
  if (typeof v !== "string") throw operandTypeError(pos, v, "string");
  return v;
}

export function numberOperand(v: unknown, pos: number): number {
  if (typeof v !== "number") throw operandTypeError(pos, v, "number");
  return v;
}

/** An integral number (OPA's `builtins.IntOperand`). */
export function intOperand(v: unknown, pos: number): number {
  const n = numberOperand(v, pos);
  if (!Number.isInteger(n)) throw operandError(pos, "must be integer number but got floating-point number");
  return n;
}

/** OPA's `builtins.IntOperand` where Go needs an `int`: beyond int64 the number is not an int either. */
export function goIntOperand(v: unknown, pos: number): number {
  const n = intOperand(v, pos);
  if (Math.abs(n) >= 2 ** 63) throw operandError(pos, "must be integer number but got floating-point number");
  return n;
}

export function arrayOperand(v: unknown, pos: number): unknown[] {
  if (!Array.isArray(v)) throw operandTypeError(pos, v, "array");
  return v;
}

/** Strings of an array or set operand (sets arrive as arrays). */
export function stringsOperand(v: unknown, pos: number): string[] {
  if (typeof v === "string") return [v];
  if (!Array.isArray(v)) throw operandTypeError(pos, v, "string", "set", "array");
  return v.map((x) => {
    // OPA's NewOperandElementErr (sets arrive as arrays, so they are named arrays here).
    if (typeof x !== "string") throw operandError(pos, `must be array of strings but got array containing ${typeName(x)}`);
    return x;
  });
}
