/**
 * The runtime library's exports a linked policy module keeps: what its hosts call.
 * Every other runtime export is dropped, and with it every runtime function that
 * neither these exports nor the generated code reach (dead-code elimination in
 * `link.ts`). A host that calls an export missing here finds it undefined, so the
 * list is checked against the callers' sources in test/wasm-link.
 */
export const KEPT_RUNTIME_EXPORTS = {
  /** What the unmodified `@open-policy-agent/opa-wasm` SDK calls (its src/opa.js). */
  sdk: [
    "opa_wasm_abi_version",
    "opa_wasm_abi_minor_version",
    "opa_eval_ctx_new",
    "opa_eval_ctx_set_input",
    "opa_eval_ctx_set_data",
    "opa_eval_ctx_set_entrypoint",
    "opa_eval_ctx_get_result",
    "eval",
    "opa_eval",
    "entrypoints",
    "builtins",
    "opa_malloc",
    "opa_heap_ptr_get",
    "opa_heap_ptr_set",
    "opa_json_parse",
    "opa_json_dump",
  ],
  /** The rest of OPA's documented module ABI the runtime implements, for other OPA Wasm hosts. */
  opaAbi: ["opa_free", "opa_value_dump"],
  /** What toolgate's own host code calls: the fast engine's shared cells, the builtin error location, the strict-errors switch. */
  toolgateHost: ["opa_null", "opa_boolean", "tg_location", "tg_strict_builtin_errors"],
} as const;

export type KeptRuntimeExport = (typeof KEPT_RUNTIME_EXPORTS)[keyof typeof KEPT_RUNTIME_EXPORTS][number];

/** Every name of `KEPT_RUNTIME_EXPORTS`, for lookups. */
export const KEPT_RUNTIME_EXPORT_NAMES: ReadonlySet<string> = new Set<string>(Object.values(KEPT_RUNTIME_EXPORTS).flat());
