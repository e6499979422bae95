/**
 * Which Rego builtins the backend can call: natives exported by runtime.wasm (by the
 * export names of RUNTIME-API.md section 5; arity read from the export's signature),
 * and toolgate's host builtins (`../host-builtins.ts`), reached via `opa_builtinN`.
 */
import binaryen from "binaryen";
import { HOST_BUILTINS } from "../host-builtins.js";
import { loadRuntimeModule } from "./link.js";

/** Rego name -> runtime export. */
const NATIVE_EXPORTS: Readonly<Record<string, string>> = {
  plus: "opa_arith_plus", minus: "opa_arith_minus", mul: "opa_arith_multiply", div: "opa_arith_divide",
  rem: "opa_arith_rem", abs: "opa_arith_abs", round: "opa_arith_round", ceil: "opa_arith_ceil",
  floor: "opa_arith_floor", "numbers.range": "opa_numbers_range",
  equal: "opa_cmp_eq", neq: "opa_cmp_neq", lt: "opa_cmp_lt", lte: "opa_cmp_lte", gt: "opa_cmp_gt", gte: "opa_cmp_gte",
  count: "opa_agg_count", sum: "opa_agg_sum", product: "opa_agg_product", max: "opa_agg_max", min: "opa_agg_min",
  sort: "opa_agg_sort", all: "opa_agg_all", any: "opa_agg_any",
  to_number: "opa_to_number", concat: "opa_strings_concat", contains: "opa_strings_contains",
  startswith: "opa_strings_startswith", endswith: "opa_strings_endswith", lower: "opa_strings_lower",
  upper: "opa_strings_upper", split: "opa_strings_split", replace: "opa_strings_replace",
  "strings.replace_n": "opa_strings_replace_n", trim: "opa_strings_trim", trim_left: "opa_strings_trim_left",
  trim_right: "opa_strings_trim_right", trim_prefix: "opa_strings_trim_prefix", trim_suffix: "opa_strings_trim_suffix",
  trim_space: "opa_strings_trim_space", substring: "opa_strings_substring", indexof: "opa_strings_indexof",
  "strings.reverse": "opa_strings_reverse", format_int: "opa_strings_format_int",
  union: "opa_sets_union", intersection: "opa_sets_intersection", or: "opa_set_union", and: "opa_set_intersection",
  "object.get": "tg_object_get", "object.keys": "tg_object_keys", "object.remove": "tg_object_remove",
  "object.union": "tg_object_union", "object.union_n": "tg_object_union_n", "object.filter": "tg_object_filter",
  "array.concat": "opa_array_concat", "array.slice": "opa_array_slice", "array.reverse": "tg_array_reverse",
  is_number: "opa_types_is_number", is_string: "opa_types_is_string", is_boolean: "opa_types_is_boolean",
  is_array: "opa_types_is_array", is_set: "opa_types_is_set", is_object: "opa_types_is_object",
  is_null: "opa_types_is_null", type_name: "opa_types_name",
  "json.marshal": "opa_json_marshal", "json.unmarshal": "opa_json_unmarshal", "json.is_valid": "tg_json_is_valid",
  "base64.encode": "opa_base64_encode", "base64.decode": "opa_base64_decode", "base64.is_valid": "opa_base64_is_valid",
  "base64url.encode": "opa_base64_url_encode", "base64url.encode_no_pad": "tg_base64_url_encode_no_pad",
  "base64url.decode": "opa_base64_url_decode",
  "internal.member_2": "tg_member_2", "internal.member_3": "tg_member_3",
};

/** Builtins the opa-wasm SDK itself ships in JavaScript that toolgate does not replace. */
const SDK_BUILTINS: Readonly<Record<string, number>> = {
  "yaml.is_valid": 1, "yaml.marshal": 1, "yaml.unmarshal": 1, "json.is_valid": 1,
};

export interface BuiltinImpl {
  /** native: runtime export; host: toolgate's host builtins; sdk: the SDK's own, by its plain name. */
  readonly kind: "native" | "host" | "sdk";
  /** Export name for natives. */
  readonly exportName: string;
  readonly arity: number;
}

let table: Map<string, BuiltinImpl> | undefined;

/** Every builtin the backend can call, natives first; computed once from runtime.wasm. */
export function builtinTable(): ReadonlyMap<string, BuiltinImpl> {
  if (table !== undefined) return table;
  const m = loadRuntimeModule();
  const t = new Map<string, BuiltinImpl>();
  try {
    for (const [name, exportName] of Object.entries(NATIVE_EXPORTS)) {
      const e = m.getExport(exportName);
      if (e === 0) continue;
      const fn = m.getFunction(binaryen.getExportInfo(e).value);
      const arity = binaryen.expandType(binaryen.getFunctionInfo(fn).params).length;
      t.set(name, { kind: "native", exportName, arity });
    }
  } finally {
    m.dispose();
  }
  for (const b of HOST_BUILTINS.values()) {
    if (!t.has(b.name)) t.set(b.name, { kind: "host", exportName: "", arity: b.arity });
  }
  for (const [name, arity] of Object.entries(SDK_BUILTINS)) {
    if (!t.has(name)) t.set(name, { kind: "sdk", exportName: "", arity });
  }
  table = t;
  return t;
}

/** name -> arity, what the planner needs. */
export function builtinArities(): Map<string, number> {
  return new Map([...builtinTable()].map(([n, b]) => [n, b.arity]));
}
