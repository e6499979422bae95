/**
 * The native builtins of runtime.wasm: Rego builtin name -> export name
 * (RUNTIME-API.md section 5). Each export takes the operands as value addresses and
 * returns a value address (0 = undefined); its arity is the export's parameter count.
 * test/wasm-runtime/runtime-builtins.test.ts checks that every entry is exported.
 * Native builtins win over host builtins (codegen/plan/NOTE-host-builtins.md).
 */
export const NATIVE_BUILTINS: Readonly<Record<string, string>> = {
  // comparison
  equal: "opa_cmp_eq", neq: "opa_cmp_neq", lt: "opa_cmp_lt", lte: "opa_cmp_lte", gt: "opa_cmp_gt", gte: "opa_cmp_gte",
  // arithmetic
  plus: "opa_arith_plus", minus: "opa_arith_minus", mul: "opa_arith_multiply", div: "opa_arith_divide",
  rem: "opa_arith_rem", abs: "opa_arith_abs", round: "opa_arith_round", ceil: "opa_arith_ceil",
  floor: "opa_arith_floor", "numbers.range": "opa_numbers_range",
  // aggregates
  count: "opa_agg_count", sum: "opa_agg_sum", product: "opa_agg_product", max: "opa_agg_max", min: "opa_agg_min",
  sort: "opa_agg_sort", all: "opa_agg_all", any: "opa_agg_any",
  // strings
  concat: "opa_strings_concat", contains: "opa_strings_contains", startswith: "opa_strings_startswith",
  endswith: "opa_strings_endswith", lower: "opa_strings_lower", upper: "opa_strings_upper",
  split: "opa_strings_split", replace: "opa_strings_replace", "strings.replace_n": "opa_strings_replace_n",
  trim: "opa_strings_trim", trim_left: "opa_strings_trim_left", trim_right: "opa_strings_trim_right",
  trim_prefix: "opa_strings_trim_prefix", trim_suffix: "opa_strings_trim_suffix", trim_space: "opa_strings_trim_space",
  substring: "opa_strings_substring", indexof: "opa_strings_indexof", "strings.reverse": "opa_strings_reverse",
  format_int: "opa_strings_format_int", "strings.any_prefix_match": "tg_strings_any_prefix_match",
  "strings.any_suffix_match": "tg_strings_any_suffix_match",
  // sets
  union: "opa_sets_union", intersection: "opa_sets_intersection", or: "opa_set_union", and: "opa_set_intersection",
  // objects
  "object.get": "tg_object_get", "object.keys": "tg_object_keys", "object.remove": "tg_object_remove",
  "object.union": "tg_object_union", "object.union_n": "tg_object_union_n", "object.filter": "tg_object_filter",
  // arrays
  "array.concat": "opa_array_concat", "array.slice": "opa_array_slice", "array.reverse": "tg_array_reverse",
  // types and conversions
  is_number: "opa_types_is_number", is_string: "opa_types_is_string", is_boolean: "opa_types_is_boolean",
  is_array: "opa_types_is_array", is_set: "opa_types_is_set", is_object: "opa_types_is_object",
  is_null: "opa_types_is_null", type_name: "opa_types_name", to_number: "opa_to_number",
  "opa.runtime": "tg_opa_runtime",
  // encodings
  sprintf: "opa_strings_sprintf",
  "json.marshal": "opa_json_marshal", "json.marshal_with_options": "tg_json_marshal_with_options", "json.unmarshal": "opa_json_unmarshal", "json.is_valid": "tg_json_is_valid",
  "base64.encode": "opa_base64_encode", "base64.decode": "opa_base64_decode", "base64.is_valid": "opa_base64_is_valid",
  "base64url.encode": "opa_base64_url_encode", "base64url.encode_no_pad": "tg_base64_url_encode_no_pad",
  "base64url.decode": "opa_base64_url_decode",
  // net
  "net.cidr_contains": "tg_net_cidr_contains",
  // units
  "units.parse": "tg_units_parse", "units.parse_bytes": "tg_units_parse_bytes",
  // graphs
  "graph.reachable": "tg_graph_reachable", "graph.reachable_paths": "tg_graph_reachable_paths",
  // `in`
  "internal.member_2": "tg_member_2", "internal.member_3": "tg_member_3",
};
