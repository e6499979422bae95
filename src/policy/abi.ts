/**
 * The policy module's ABI as TypeScript sees it: the one place the emitter
 * (codegen/wasm), the fast engine and the SDK engine take it from. It owns the value
 * cell tags, the names of the runtime library's exports, the imports a host
 * provides, the exports the emitter adds, the custom sections and their decoded
 * shapes, and the bits of the decision scalar. The runtime library itself
 * (codegen/wasm/assembly, AssemblyScript) spells the same facts in its own
 * language; test/wasm-link/abi-agreement.test.ts checks a built module against
 * this file. The layout is documented in codegen/wasm/RUNTIME-API.md.
 *
 * Constants and types only, no imports: any host (the runtime package included)
 * can import it without a build step or a dependency.
 */

// ---- value cells (RUNTIME-API.md section 2): byte 0 is the tag

export const T_NULL = 1;
export const T_BOOLEAN = 2;
export const T_NUMBER = 3;
export const T_STRING = 4;
export const T_ARRAY = 5;
export const T_OBJECT = 6;
export const T_SET = 7;

/** Byte 1 of a number cell: its representation. */
export const N_INT = 1;
export const N_FLOAT = 2;
/** Decimal text outside the i64 range. */
export const N_BIG = 3;

/** Byte 1 of an object or set cell: its entries are not in key order yet. */
export const F_UNSORTED = 2;

const utf8 = new TextEncoder();

/** The runtime's order of strings (object keys, set members): bytewise on UTF-8, a prefix first. */
export function compareUtf8(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

// ---- the runtime library's exports (codegen/wasm/assembly)

/** What the unmodified `@open-policy-agent/opa-wasm` SDK calls (its src/opa.js); kept in every linked module. */
export const SDK_EXPORTS = {
  abiVersion: "opa_wasm_abi_version",
  abiMinorVersion: "opa_wasm_abi_minor_version",
  evalCtxNew: "opa_eval_ctx_new",
  evalCtxSetInput: "opa_eval_ctx_set_input",
  evalCtxSetData: "opa_eval_ctx_set_data",
  evalCtxSetEntrypoint: "opa_eval_ctx_set_entrypoint",
  evalCtxGetResult: "opa_eval_ctx_get_result",
  eval: "eval",
  opaEval: "opa_eval",
  entrypoints: "entrypoints",
  builtins: "builtins",
  malloc: "opa_malloc",
  heapPtrGet: "opa_heap_ptr_get",
  heapPtrSet: "opa_heap_ptr_set",
  jsonParse: "opa_json_parse",
  jsonDump: "opa_json_dump",
} as const;

/** The rest of OPA's documented module ABI the runtime implements, for other OPA Wasm hosts; kept in every linked module. */
export const OPA_ABI_EXPORTS = {
  free: "opa_free",
  valueDump: "opa_value_dump",
} as const;

/** What toolgate's own hosts call besides the SDK's: the shared cells, the builtin error location, the strict-errors switch (a global). */
export const TOOLGATE_HOST_EXPORTS = {
  nullCell: "opa_null",
  booleanCell: "opa_boolean",
  location: "tg_location",
  strictBuiltinErrors: "tg_strict_builtin_errors",
} as const;

/** Runtime functions and globals generated code reaches (linked by name, not exported by a linked module unless kept above). */
export const CODE_EXPORTS = {
  runtimeError: "opa_runtime_error",
  numberSize: "opa_number_size",
  numberRef: "opa_number_ref",
  valueLength: "opa_value_length",
  valueType: "opa_value_type",
  valueGet: "opa_value_get",
  valueMerge: "opa_value_merge",
  valueShallowCopy: "opa_value_shallow_copy",
  arrayWithCap: "opa_array_with_cap",
  arrayAppend: "opa_array_append",
  object: "opa_object",
  objectInsert: "opa_object_insert",
  set: "opa_set",
  setAdd: "opa_set_add",
  valueAt: "tg_value_at",
  keyAt: "tg_key_at",
  valueEqual: "tg_value_equal",
  valueUpsert: "tg_value_upsert",
  objectInsertOnce: "tg_object_insert_once",
  setLocation: "tg_set_location",
  exactEncode: "tg_exact_encode",
  exactDecode: "tg_exact_decode",
  /** Global: the address of the input paths table for the projected parse of `opa_eval`. */
  inputPaths: "tg_input_paths",
} as const;

export type RuntimeExportName =
  | (typeof SDK_EXPORTS)[keyof typeof SDK_EXPORTS]
  | (typeof OPA_ABI_EXPORTS)[keyof typeof OPA_ABI_EXPORTS]
  | (typeof TOOLGATE_HOST_EXPORTS)[keyof typeof TOOLGATE_HOST_EXPORTS]
  | (typeof CODE_EXPORTS)[keyof typeof CODE_EXPORTS];

/** The imports of module `toolgate` the runtime library declares and generated code provides (RUNTIME-API.md section 1). */
export const RUNTIME_IMPORT_MODULE = "toolgate";
export const RUNTIME_IMPORTS = ["eval", "entrypoints", "builtins", "heap_base"] as const;
export type RuntimeImport = (typeof RUNTIME_IMPORTS)[number];

// ---- what a host provides (module `env`)

export const HOST_IMPORT_MODULE = "env";
export const HOST_IMPORTS = {
  memory: "memory",
  abort: "opa_abort",
  println: "opa_println",
} as const;

/** The host builtin import taking `arity` operands (`opa_builtin0` .. `opa_builtin4`). */
export const hostBuiltinImport = (arity: number): string => `opa_builtin${arity}`;
export const HOST_BUILTIN_MAX_ARITY = 4;

// ---- exports the emitter adds to a policy module

export const MODULE_EXPORTS = {
  /** `(entrypoint, input, data) -> i32`: the decision scalar (see DECISION below). */
  decision: "toolgate_decision",
  /** `(units: f64)`: sets the step budget and refills the counter (Infinity: unlimited). */
  fuelBudgetSet: "toolgate_fuel_budget_set",
  /** `() -> f64`: steps left, negative once the budget was exceeded. */
  fuelLeft: "toolgate_fuel_left",
  /** `() -> i32`: address of the coverage bytes (modules built with coverage). */
  coveragePtr: "toolgate_coverage_ptr",
} as const;

// ---- the decision scalar of `toolgate_decision`

/**
 * `0` undefined (not exactly one result), `1` one result that is not a decision object,
 * else `reason | DEFINED | allow | requires_approval << 1` where `reason` is the address
 * of the reason's string cell (cells are 8-byte aligned: the low three bits are free).
 */
export const DECISION = {
  undefined: 0,
  malformed: 1,
  allow: 1,
  requiresApproval: 2,
  defined: 4,
  /** The bits below the reason's cell address. */
  flags: 7,
} as const;

/** The scalar `toolgate_decision` returns for a well-formed decision (reasonCell 8-aligned). */
export function decisionScalar(allow: boolean, requiresApproval: boolean, reasonCell: number): number {
  return reasonCell | DECISION.defined | (allow ? DECISION.allow : 0) | (requiresApproval ? DECISION.requiresApproval : 0);
}

export type DecodedDecision =
  | { readonly kind: "undefined" }
  | { readonly kind: "malformed" }
  | { readonly kind: "decision"; readonly allow: boolean; readonly requiresApproval: boolean; readonly reasonCell: number };

/** The scalar's meaning (the fast engine inlines the same tests). */
export function decodeDecision(r: number): DecodedDecision {
  if (r === DECISION.undefined) return { kind: "undefined" };
  if (r === DECISION.malformed) return { kind: "malformed" };
  return { kind: "decision", allow: (r & DECISION.allow) !== 0, requiresApproval: (r & DECISION.requiresApproval) !== 0, reasonCell: r & ~DECISION.flags };
}

// ---- custom sections

export const SECTIONS = {
  /** JSON `InputPathsSectionJson`: the parts of `input` each entrypoint can read. */
  inputPaths: "toolgate.input_paths",
  /** JSON `FuelSection`: how many fuel checks of each kind the module has. */
  fuel: "toolgate.fuel",
} as const;

/** `true`: the whole value; an object: the only members the policy can look at (`{}`: the value but none of its members). */
export type InputPaths = true | { readonly [key: string]: InputPaths };

export interface InputPathsSectionJson {
  readonly version: 1;
  readonly entrypoints: Readonly<Record<string, InputPaths>>;
  /** The module's static string cell of each member name. */
  readonly keys: Readonly<Record<string, number>>;
}

/** Where the module checks its fuel. */
export type FuelSite = "entry" | "scan" | "builtin";

export interface FuelSection {
  readonly version: 1;
  /** Check sites per kind. */
  readonly checks: Record<FuelSite, number>;
  /** Generated functions with and without an entry check. */
  readonly functions: { readonly checked: number; readonly unchecked: number };
}
