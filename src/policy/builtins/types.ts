/**
 * What the builtin registry holds: a builtin's declaration (name and types, as the type
 * checker reads them) and where it runs (an export of runtime.wasm, a JavaScript host
 * function, or the opa-wasm SDK's own JavaScript).
 *
 * Types are a small language: "any", "number", "string", "boolean", "null", "array",
 * "object", "set"; an argument or result accepts a union of them.
 */
export type ValueType = "any" | "number" | "string" | "boolean" | "null" | "array" | "object" | "set";

export const VALUE_TYPES: readonly ValueType[] = ["any", "number", "string", "boolean", "null", "array", "object", "set"];

/** A JavaScript builtin: JSON-shaped operands in, a JSON-shaped result (or undefined) out; throws on an error. */
export type HostBuiltinFn = (...args: unknown[]) => unknown;

export interface BuiltinSignature {
  readonly name: string;
  /** Accepted types per argument (a union); empty array = no arguments. */
  readonly args: readonly (readonly ValueType[])[];
  /** Result type; `null` when the builtin returns nothing useful (print). */
  readonly result: readonly ValueType[] | null;
  /** Infix spelling, for messages. */
  readonly infix?: string;
  /** The argument count is free (print). */
  readonly variadic?: boolean;
  /** Result depends on time/randomness: never constant-folded. */
  readonly nondeterministic?: boolean;
  /** Removed from Rego v1: calls are a `rego_type_error`. */
  readonly deprecated?: boolean;
}

/**
 * One builtin. At most one implementation is used when compiling: `native` wins over
 * `host`, which wins over `sdk`. A declaration without any implementation can still be
 * type checked and replaced with `with`; compiling a real call to it is an error.
 */
export interface BuiltinEntry extends BuiltinSignature {
  /** Export of the runtime library (runtime.wasm) that implements it; its arity is `args.length`. */
  readonly native?: string;
  /**
   * A runtime library export that implemented the builtin in modules built before it
   * moved to `host`; the runtime keeps exporting it so those modules still load. The
   * emitter never calls it.
   */
  readonly retiredNative?: string;
  /** JavaScript implementation, called through `env.opa_builtin<arity>`. */
  readonly host?: HostBuiltinFn;
  /** Implemented by the opa-wasm SDK's own JavaScript, under its plain name. */
  readonly sdk?: boolean;
  /**
   * A host builtin whose JavaScript the run-time entry does not ship (it needs the build
   * tools); they register it when loaded (src/policy/host-builtins/provided.ts).
   */
  readonly provided?: boolean;
  /**
   * A host builtin whose operands and result cross as tagged JSON text (objects
   * {"o": [[k, v]]}, sets {"s": [...]}, numbers digit for digit): it sees sets as sets and
   * `1.0` apart from `1` (codegen/wasm/assembly/builtins/exact.ts, host-builtins/exact-value.ts).
   */
  readonly exact?: boolean;
  /** Declared by the user (tools.yaml `policy.builtins`), not by OPA. */
  readonly custom?: boolean;
}
