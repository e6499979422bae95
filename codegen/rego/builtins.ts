/**
 * The type checker's view of the builtin registry (src/policy/builtins): declarations
 * by OPA's names, used to resolve calls, check arity, and reject arguments whose type
 * is settled at compile time. Custom builtins join the declarations for the duration
 * of one (synchronous) front-end run, `withCustomBuiltins`.
 */
import { BUILTINS, isUnsupportedOpaBuiltin, type BuiltinEntry, type CustomBuiltins } from "../../src/policy/builtins/index.js";
import type { BuiltinSignature } from "../../src/policy/builtins/index.js";

export type { BuiltinSignature, ValueType } from "../../src/policy/builtins/index.js";

export const builtins: ReadonlyMap<string, BuiltinSignature> = BUILTINS;

let custom: ReadonlyMap<string, BuiltinEntry> = new Map();

/** Runs `run` with `set`'s declarations visible to lookupBuiltin (restored afterwards, also on a throw). */
export function withCustomBuiltins<T>(set: CustomBuiltins | undefined, run: () => T): T {
  if (set === undefined || set.entries.length === 0) return run();
  const outer = custom;
  custom = new Map([...outer, ...set.entries.map((e) => [e.name, e] as const)]);
  try {
    return run();
  } finally {
    custom = outer;
  }
}

/** True for a real OPA builtin without a declaration (reported as "not supported yet"). */
export function isUndeclaredOpaBuiltin(name: string): boolean {
  return isUnsupportedOpaBuiltin(name) && !custom.has(name);
}

/** Every builtin a call may name (OPA's, then the custom ones), for "did you mean" hints. */
export function callableBuiltinNames(): string[] {
  const names: string[] = [];
  for (const [name, b] of BUILTINS) if (b.deprecated !== true && !name.startsWith("internal.")) names.push(name);
  return [...names, ...custom.keys()];
}

export function lookupBuiltin(name: string): BuiltinSignature | undefined {
  return BUILTINS.get(name) ?? custom.get(name);
}
