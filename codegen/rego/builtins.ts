/**
 * The type checker's view of the builtin registry (src/policy/builtins): declarations
 * by OPA's names, used to resolve calls, check arity, and reject arguments whose type
 * is settled at compile time.
 */
import { BUILTINS, isUnsupportedOpaBuiltin, lookupBuiltin as lookup } from "../../src/policy/builtins/index.js";
import type { BuiltinSignature } from "../../src/policy/builtins/index.js";

export type { BuiltinSignature, ValueType } from "../../src/policy/builtins/index.js";

export const builtins: ReadonlyMap<string, BuiltinSignature> = BUILTINS;

/** True for a real OPA builtin without a declaration (reported as "not supported yet"). */
export function isUndeclaredOpaBuiltin(name: string): boolean {
  return isUnsupportedOpaBuiltin(name);
}

export function lookupBuiltin(name: string): BuiltinSignature | undefined {
  return lookup(name);
}
