/** Calls a host builtin by OPA name; results normalised (raw JSON text -> value, big ints -> bigint). */
import { hostValue } from "../../src/policy/host-builtins/exact.js";
import { implementations } from "../../src/policy/host-builtins/index.js";

export type Outcome = { ok: unknown } | { error: string };

export function call(name: string, ...args: unknown[]): Outcome {
  const fn = implementations[name];
  if (fn === undefined) throw new Error(`no host builtin ${name}`);
  try {
    return { ok: hostValue(fn(...args)) };
  } catch (e) {
    return { error: `${(e as { code?: string }).code ?? "?"}: ${(e as Error).message}` };
  }
}

export interface Row {
  readonly note: string;
  readonly fn: string;
  readonly args: readonly unknown[];
  /** Expected value, or an error text fragment (`{ error }`). */
  readonly want: unknown;
}
