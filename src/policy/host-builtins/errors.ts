/**
 * Errors a host builtin raises, in OPA's shape: the code decides the prefix the
 * strict wrapper puts on the message (`eval_type_error: <builtin>: ...`).
 */

export type BuiltinErrorCode = "eval_type_error" | "eval_builtin_error" | "eval_conflict_error";

export class BuiltinError extends Error {
  override name = "BuiltinError";
  constructor(
    readonly code: BuiltinErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const isBuiltinError = (e: unknown): e is BuiltinError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "BuiltinError";

/** OPA's type names of JSON values (sets reach the host as arrays, except on the exact protocol). */
export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (v instanceof Set) return "set";
  switch (typeof v) {
    case "boolean":
      return "boolean";
    case "bigint":
    case "number":
      return "number";
    case "string":
      return "string";
    case "object":
      return "object";
    default:
      return "undefined";
  }
}

/** OPA's `builtins.NewOperandTypeErr`: "operand 1 must be string but got number". */
export function operandTypeError(pos: number, got: unknown, ...expected: string[]): BuiltinError {
  const want = expected.length === 1 ? expected[0]! : `one of {${expected.join(", ")}}`;
  return new BuiltinError("eval_type_error", `operand ${pos} must be ${want} but got ${typeName(got)}`);
}

/** OPA's `builtins.NewOperandErr`: "operand 2 <message>". */
export function operandError(pos: number, message: string): BuiltinError {
  return new BuiltinError("eval_type_error", `operand ${pos} ${message}`);
}

export function builtinError(message: string): BuiltinError {
  return new BuiltinError("eval_builtin_error", message);
}

/** OPA's `ConflictErr` halt: raised in non-strict mode too, and named without the builtin. */
export function conflictError(message: string): BuiltinError {
  return new BuiltinError("eval_conflict_error", message);
}
