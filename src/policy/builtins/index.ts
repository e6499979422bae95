/**
 * The builtin registry: one table (table.ts) from which the type checker reads
 * declarations, the emitter reads where each builtin runs, and the host object
 * (src/policy/host-builtins) reads the JavaScript implementations.
 */
import { OPA_BUILTINS } from "./table.js";
import { UNSUPPORTED_OPA_BUILTINS } from "./unsupported.js";
import type { BuiltinEntry, HostBuiltinFn } from "./types.js";

export type { BuiltinEntry, BuiltinSignature, HostBuiltinFn, ValueType } from "./types.js";
export { VALUE_TYPES } from "./types.js";
export { parseTypeUnion, sig, type HostGroup, type SigOptions } from "./declare.js";

function indexByName(entries: readonly BuiltinEntry[]): ReadonlyMap<string, BuiltinEntry> {
  const m = new Map<string, BuiltinEntry>();
  for (const e of entries) {
    if (m.has(e.name)) throw new Error(`builtin ${e.name} is declared twice`);
    m.set(e.name, e);
  }
  return m;
}

/** OPA's builtins, by name. */
export const BUILTINS: ReadonlyMap<string, BuiltinEntry> = indexByName(OPA_BUILTINS);

export function lookupBuiltin(name: string): BuiltinEntry | undefined {
  return BUILTINS.get(name);
}

/** True for a real OPA builtin toolgate has no entry for (see unsupported.ts). */
export function isUnsupportedOpaBuiltin(name: string): boolean {
  return UNSUPPORTED_OPA_BUILTINS.has(name) && !BUILTINS.has(name);
}

/** Builtin name -> runtime library export, for every builtin with a native implementation. */
export function nativeExports(entries: Iterable<BuiltinEntry> = BUILTINS.values()): ReadonlyMap<string, string> {
  const m = new Map<string, string>();
  for (const e of entries) if (e.native !== undefined) m.set(e.name, e.native);
  return m;
}

/** Builtin name -> JavaScript implementation, for every builtin with one (natives may have one too). */
export function hostImplementations(entries: Iterable<BuiltinEntry> = BUILTINS.values()): Readonly<Record<string, HostBuiltinFn>> {
  const out: Record<string, HostBuiltinFn> = {};
  for (const e of entries) if (e.host !== undefined) out[e.name] = e.host;
  return out;
}

export {
  CustomBuiltinError,
  defineBuiltins,
  isCustomBuiltinError,
  isCustomBuiltins,
  NO_CUSTOM_BUILTINS,
  toCustomBuiltins,
  type CustomBuiltins,
  type CustomBuiltinSpec,
  type JsArgsOf,
  type JsValueOf,
  type TypeSpec,
} from "./custom.js";
