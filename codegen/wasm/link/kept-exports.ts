/**
 * The runtime library's exports a linked policy module keeps: what its hosts call
 * (the names are the ABI's, src/policy/abi.ts). Every other runtime export is
 * dropped, and with it every runtime function that neither these exports nor the
 * generated code reach (dead-code elimination in `link.ts`). A host that calls an
 * export missing here finds it undefined, so the list is checked against the
 * callers' sources in test/wasm-link.
 */
import { OPA_ABI_EXPORTS, SDK_EXPORTS, TOOLGATE_HOST_EXPORTS } from "../../../src/policy/abi.js";

const names = <T extends Record<string, string>>(group: T): T[keyof T][] => Object.values(group) as T[keyof T][];

export const KEPT_RUNTIME_EXPORTS = {
  /** What the unmodified `@open-policy-agent/opa-wasm` SDK calls (its src/opa.js). */
  sdk: names(SDK_EXPORTS),
  /** The rest of OPA's documented module ABI the runtime implements, for other OPA Wasm hosts. */
  opaAbi: names(OPA_ABI_EXPORTS),
  /** What toolgate's own host code calls: the fast engine's shared cells, the builtin error location, the strict-errors switch. */
  toolgateHost: names(TOOLGATE_HOST_EXPORTS),
} as const;

export type KeptRuntimeExport = (typeof KEPT_RUNTIME_EXPORTS)[keyof typeof KEPT_RUNTIME_EXPORTS][number];

/** Every name of `KEPT_RUNTIME_EXPORTS`, for lookups. */
export const KEPT_RUNTIME_EXPORT_NAMES: ReadonlySet<string> = new Set<string>(Object.values(KEPT_RUNTIME_EXPORTS).flat());
