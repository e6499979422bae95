/** `sig(...)`: the compact notation the builtin table is written in. */
import type { BuiltinEntry, HostBuiltinFn, ValueType } from "./types.js";
import { VALUE_TYPES } from "./types.js";

/** A module's record of host implementations, keyed by OPA builtin name. */
export type HostGroup = Readonly<Record<string, (...args: never[]) => unknown>>;

export interface SigOptions {
  readonly infix?: string;
  readonly variadic?: boolean;
  readonly nondeterministic?: boolean;
  readonly deprecated?: boolean;
  /** Runtime library export. */
  readonly native?: string;
  /** Runtime export that served modules built before the builtin moved to the host. */
  readonly retiredNative?: string;
  /** Host implementations: the entry takes `host[name]`, which must exist. */
  readonly host?: HostGroup;
  readonly sdk?: boolean;
  /** Host builtin registered by the build tools at load time (see host-builtins/provided.ts). */
  readonly provided?: boolean;
  /** Host builtin on the exact protocol (tagged JSON text both ways). */
  readonly exact?: boolean;
}

/** "string|number" -> ["string", "number"]; an unknown type name is a programming error. */
export function parseTypeUnion(spec: string): readonly ValueType[] {
  const parts = spec.split("|");
  for (const p of parts) if (!(VALUE_TYPES as readonly string[]).includes(p)) throw new Error(`unknown builtin type ${JSON.stringify(p)} in ${JSON.stringify(spec)}`);
  return parts as ValueType[];
}

/** `sig("name", "arg1 arg2", "result", { ... })`: args separated by spaces, unions by `|`. */
export function sig(name: string, args: string, result: string | null, options: SigOptions = {}): BuiltinEntry {
  const { host, ...rest } = options;
  const entry: BuiltinEntry = {
    name,
    args: args === "" ? [] : args.split(" ").map(parseTypeUnion),
    result: result === null ? null : parseTypeUnion(result),
    ...rest,
  };
  if (host === undefined) return entry;
  const fn = host[name];
  if (typeof fn !== "function") throw new Error(`builtin ${name}: the host group given has no implementation of that name`);
  return { ...entry, host: fn as unknown as HostBuiltinFn };
}
