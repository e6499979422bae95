/**
 * Every builtin toolgate knows, by OPA's own names (v1/ast/builtins.go): infix operators
 * appear under their internal names (`plus`, `equal`, `internal.member_2`, ...).
 * Each line declares the types and says where the builtin runs: `native` names the
 * runtime library's export (codegen/wasm/assembly/builtins/), `host` the group of
 * JavaScript implementations (src/policy/host-builtins/) holding it under the same name,
 * `sdk` the opa-wasm SDK's own JavaScript. Natives win over host implementations.
 */
import { bitsBuiltins as bits } from "../host-builtins/bits.js";
import { cryptoBuiltins as crypto } from "../host-builtins/crypto.js";
import { encodingBuiltins as encoding } from "../host-builtins/encoding.js";
import { globBuiltins as glob } from "../host-builtins/glob.js";
import { jsonFilterBuiltins as jsonFilter } from "../host-builtins/json-filter.js";
import { jsonPatchBuiltins as jsonPatch } from "../host-builtins/json-patch.js";
import { jsonSchemaBuiltins as jsonSchema } from "../host-builtins/json-schema.js";
import { jwtBuiltins as jwt } from "../host-builtins/jwt.js";
import { jwtSignBuiltins as jwtSign } from "../host-builtins/jwt-sign.js";
import { jwtVerifyBuiltins as jwtVerify } from "../host-builtins/jwt-verify.js";
import { netBuiltins as net } from "../host-builtins/net.js";
import { randomBuiltins as random } from "../host-builtins/random.js";
import { renderTemplateBuiltins as renderTemplate } from "../host-builtins/render-template.js";
import { regexBuiltins as regex } from "../host-builtins/regex.js";
import { semverBuiltins as semver } from "../host-builtins/semver.js";
import { sprintfBuiltins as sprintf } from "../host-builtins/sprintf.js";
import { stringsBuiltins as strings } from "../host-builtins/strings.js";
import { templateStringBuiltins as templateString } from "../host-builtins/template-string.js";
import { textBuiltins as text } from "../host-builtins/text.js";
import { timeBuiltins as time } from "../host-builtins/time.js";
import { unitsBuiltins as units } from "../host-builtins/units.js";
import { uuidBuiltins as uuid } from "../host-builtins/uuid.js";
import { yamlBuiltins as yaml } from "../host-builtins/yaml.js";
import { sig } from "./declare.js";
import type { BuiltinEntry } from "./types.js";

const COLL = "array|object|set";
const NUM2 = "number number";

export const OPA_BUILTINS: readonly BuiltinEntry[] = [
  // unification, assignment, comparison (operands of any type)
  sig("eq", "any any", "boolean", { infix: "=" }),
  sig("assign", "any any", "boolean", { infix: ":=" }),
  sig("equal", "any any", "boolean", { infix: "==", native: "opa_cmp_eq" }),
  sig("neq", "any any", "boolean", { infix: "!=", native: "opa_cmp_neq" }),
  sig("lt", "any any", "boolean", { infix: "<", native: "opa_cmp_lt" }),
  sig("gt", "any any", "boolean", { infix: ">", native: "opa_cmp_gt" }),
  sig("lte", "any any", "boolean", { infix: "<=", native: "opa_cmp_lte" }),
  sig("gte", "any any", "boolean", { infix: ">=", native: "opa_cmp_gte" }),
  sig("internal.member_2", "any any", "boolean", { infix: "in", native: "tg_member_2" }),
  sig("internal.member_3", "any any any", "boolean", { infix: "in", native: "tg_member_3" }),
  // arithmetic and sets
  sig("plus", NUM2, "number", { infix: "+", native: "opa_arith_plus" }),
  sig("minus", "number|set number|set", "number|set", { infix: "-", native: "opa_arith_minus" }),
  sig("mul", NUM2, "number", { infix: "*", native: "opa_arith_multiply" }),
  sig("div", NUM2, "number", { infix: "/", native: "opa_arith_divide" }),
  sig("rem", NUM2, "number", { infix: "%", native: "opa_arith_rem" }),
  sig("and", "set set", "set", { infix: "&", native: "opa_set_intersection" }),
  sig("or", "set set", "set", { infix: "|", native: "opa_set_union" }),
  sig("abs", "number", "number", { native: "opa_arith_abs" }),
  sig("round", "number", "number", { native: "opa_arith_round" }),
  sig("ceil", "number", "number", { native: "opa_arith_ceil" }),
  sig("floor", "number", "number", { native: "opa_arith_floor" }),
  sig("numbers.range", NUM2, "array", { native: "opa_numbers_range" }),
  sig("numbers.range_step", "number number number", "array"),
  sig("bits.or", NUM2, "number", { host: bits }),
  sig("bits.and", NUM2, "number", { host: bits }),
  sig("bits.negate", "number", "number", { host: bits }),
  sig("bits.xor", NUM2, "number", { host: bits }),
  sig("bits.lsh", NUM2, "number", { host: bits }),
  sig("bits.rsh", NUM2, "number", { host: bits }),
  // aggregates
  sig("count", `${COLL}|string`, "number", { native: "opa_agg_count" }),
  sig("sum", "array|set", "number", { native: "opa_agg_sum" }),
  sig("product", "array|set", "number", { native: "opa_agg_product" }),
  sig("max", "array|set", "any", { native: "opa_agg_max" }),
  sig("min", "array|set", "any", { native: "opa_agg_min" }),
  sig("sort", "array|set", "array", { native: "opa_agg_sort" }),
  sig("all", "array|set", "boolean", { deprecated: true, native: "opa_agg_all" }),
  sig("any", "array|set", "boolean", { deprecated: true, native: "opa_agg_any" }),
  // arrays
  sig("array.concat", "array array", "array", { native: "opa_array_concat" }),
  sig("array.slice", "array number number", "array", { native: "opa_array_slice" }),
  sig("array.reverse", "array", "array", { native: "tg_array_reverse" }),
  sig("array.flatten", "array", "array", { native: "tg_array_flatten" }),
  // sets
  sig("intersection", "set", "set", { native: "opa_sets_intersection" }),
  sig("union", "set", "set", { native: "opa_sets_union" }),
  // objects
  sig("object.get", "object any any", "any", { native: "tg_object_get" }),
  sig("object.keys", "object", "set", { native: "tg_object_keys" }),
  sig("object.remove", "object array|object|set", "object", { native: "tg_object_remove" }),
  sig("object.filter", "object array|object|set", "object", { native: "tg_object_filter" }),
  sig("object.union", "object object", "object", { native: "tg_object_union" }),
  sig("object.union_n", "array", "object", { native: "tg_object_union_n" }),
  sig("object.subset", "array|object|set array|object|set", "boolean", { native: "tg_object_subset" }),
  // exact: sets, non-string keys and numbers reach them as they are (tagged JSON text both ways)
  sig("json.filter", "object array|set", "any", { host: jsonFilter, exact: true }),
  sig("json.remove", "object array|set", "any", { host: jsonFilter, exact: true }),
  sig("json.patch", "any array", "any", { host: jsonPatch, exact: true }),
  sig("json.verify_schema", "string|object", "array", { host: jsonSchema }),
  sig("json.match_schema", "string|object string|object", "array", { host: jsonSchema }),
  // strings
  sig("concat", "string array|set", "string", { native: "opa_strings_concat" }),
  sig("contains", "string string", "boolean", { native: "opa_strings_contains" }),
  sig("startswith", "string string", "boolean", { native: "opa_strings_startswith" }),
  sig("endswith", "string string", "boolean", { native: "opa_strings_endswith" }),
  sig("lower", "string", "string", { native: "opa_strings_lower" }),
  sig("upper", "string", "string", { native: "opa_strings_upper" }),
  sig("split", "string string", "array", { native: "opa_strings_split" }),
  sig("strings.split_n", "string string number", "array", { native: "tg_strings_split_n" }),
  sig("replace", "string string string", "string", { native: "opa_strings_replace" }),
  sig("strings.replace_n", "object string", "string", { native: "opa_strings_replace_n" }),
  sig("strings.reverse", "string", "string", { native: "opa_strings_reverse" }),
  sig("strings.any_prefix_match", "string|array|set string|array|set", "boolean", { native: "tg_strings_any_prefix_match", host: strings }),
  sig("strings.any_suffix_match", "string|array|set string|array|set", "boolean", { native: "tg_strings_any_suffix_match", host: strings }),
  sig("strings.count", "string string", "number", { host: text }),
  sig("strings.render_template", "string object", "string", { host: renderTemplate }),
  sig("trim", "string string", "string", { native: "opa_strings_trim" }),
  sig("trim_left", "string string", "string", { native: "opa_strings_trim_left" }),
  sig("trim_right", "string string", "string", { native: "opa_strings_trim_right" }),
  sig("trim_prefix", "string string", "string", { native: "opa_strings_trim_prefix" }),
  sig("trim_suffix", "string string", "string", { native: "opa_strings_trim_suffix" }),
  sig("trim_space", "string", "string", { native: "opa_strings_trim_space" }),
  sig("substring", "string number number", "string", { native: "opa_strings_substring" }),
  sig("indexof", "string string", "number", { native: "opa_strings_indexof" }),
  sig("indexof_n", "string string", "array", { host: text }),
  sig("format_int", "number number", "string", { native: "opa_strings_format_int" }),
  sig("sprintf", "string array", "string", { native: "opa_strings_sprintf", host: sprintf }),
  // what template strings ($"a{x}b") are rewritten to (codegen/rego/desugar.ts)
  sig("internal.template_string", "array", "string", { host: templateString }),
  // constants per rule: every call is replaced by its value before type checking (codegen/rego/metadata-calls.ts)
  sig("rego.metadata.rule", "", "object"),
  sig("rego.metadata.chain", "", "array"),
  // needs the Rego parser: registered by the build tools (codegen/rego-json), absent from the runtime entry
  sig("rego.parse_module", "string string", "object", { provided: true }),
  // types
  sig("is_number", "any", "boolean", { native: "opa_types_is_number" }),
  sig("is_string", "any", "boolean", { native: "opa_types_is_string" }),
  sig("is_boolean", "any", "boolean", { native: "opa_types_is_boolean" }),
  sig("is_array", "any", "boolean", { native: "opa_types_is_array" }),
  sig("is_set", "any", "boolean", { native: "opa_types_is_set" }),
  sig("is_object", "any", "boolean", { native: "opa_types_is_object" }),
  sig("is_null", "any", "boolean", { native: "opa_types_is_null" }),
  sig("type_name", "any", "string", { native: "opa_types_name" }),
  sig("to_number", "null|boolean|number|string", "number", { native: "opa_to_number" }),
  // encoding
  sig("json.marshal", "any", "string", { native: "opa_json_marshal" }),
  sig("json.marshal_with_options", "any object", "string", { native: "tg_json_marshal_with_options" }),
  // host: Go's encoding/json and encoding/base64 error texts (the retired natives serve modules built before)
  sig("json.unmarshal", "string", "any", { host: encoding, retiredNative: "opa_json_unmarshal" }),
  sig("json.is_valid", "string", "boolean", { native: "tg_json_is_valid" }),
  sig("base64.encode", "string", "string", { native: "opa_base64_encode" }),
  sig("base64.decode", "string", "string", { host: encoding, retiredNative: "opa_base64_decode" }),
  sig("base64.is_valid", "string", "boolean", { native: "opa_base64_is_valid" }),
  sig("base64url.encode", "string", "string", { native: "opa_base64_url_encode" }),
  sig("base64url.encode_no_pad", "string", "string", { native: "tg_base64_url_encode_no_pad" }),
  sig("base64url.decode", "string", "string", { host: encoding, retiredNative: "opa_base64_url_decode" }),
  sig("urlquery.encode", "string", "string"),
  sig("urlquery.decode", "string", "string"),
  sig("urlquery.encode_object", "object", "string"),
  sig("hex.encode", "string", "string"),
  sig("hex.decode", "string", "string"),
  sig("yaml.marshal", "any", "string", { sdk: true }),
  sig("yaml.unmarshal", "string", "any", { host: yaml }),
  sig("yaml.is_valid", "string", "boolean", { host: yaml }),
  // time
  sig("time.now_ns", "", "number", { nondeterministic: true, host: time }),
  sig("time.parse_rfc3339_ns", "string", "number", { host: time }),
  sig("time.parse_ns", "string string", "number", { host: time }),
  sig("time.parse_duration_ns", "string", "number", { host: time }),
  sig("time.format", "number|array", "string", { host: time, exact: true }),
  sig("time.add_date", "number number number number", "number", { host: time, exact: true }),
  sig("time.date", "number|array", "array", { host: time, exact: true }),
  sig("time.clock", "number|array", "array", { host: time, exact: true }),
  sig("time.weekday", "number|array", "string", { host: time, exact: true }),
  sig("time.diff", "number|array number|array", "array", { host: time, exact: true }),
  sig("test.sleep", "string", "null", { nondeterministic: true, host: time }),
  // matching
  sig("glob.match", "string null|array string", "boolean", { host: glob }),
  sig("glob.quote_meta", "string", "string", { host: glob }),
  sig("regex.match", "string string", "boolean", { host: regex }),
  sig("regex.is_valid", "any", "boolean", { host: regex }),
  sig("regex.find_n", "string string number", "array", { host: regex }),
  sig("regex.find_all_string_submatch_n", "string string number", "array", { host: regex }),
  sig("regex.split", "string string", "array", { host: regex }),
  sig("regex.replace", "string string string", "string", { host: regex }),
  sig("regex.template_match", "string string string string", "boolean", { host: regex }),
  sig("regex.globs_match", "string string", "boolean", { host: regex }),
  // networks, units, misc
  sig("net.cidr_contains", "string string", "boolean", { native: "tg_net_cidr_contains", host: net }),
  sig("net.cidr_intersects", "string string", "boolean", { host: net }),
  sig("net.cidr_is_valid", "any", "boolean", { host: net }),
  sig("net.cidr_expand", "string", "set"),
  sig("net.cidr_merge", "array|set", "set"),
  sig("net.cidr_contains_matches", "string|array|set|object string|array|set|object", "set"),
  sig("units.parse_bytes", "string", "number", { host: units }),
  sig("units.parse", "string", "number", { host: units }),
  sig("walk", "any", "array", { native: "tg_walk" }),
  sig("http.send", "object", "object", { nondeterministic: true }),
  sig("print", "", null, { variadic: true, native: "tg_print_format" }),
  sig("trace", "string", "boolean", { host: text }),
  sig("opa.runtime", "", "object", { nondeterministic: true, native: "tg_opa_runtime" }),
  sig("rand.intn", "string number", "number", { nondeterministic: true, host: random }),
  sig("uuid.rfc4122", "string", "string", { nondeterministic: true, host: random }),
  sig("uuid.parse", "string", "object", { host: uuid }),
  sig("crypto.sha256", "string", "string", { host: crypto }),
  sig("crypto.md5", "string", "string", { host: crypto }),
  sig("crypto.sha1", "string", "string", { host: crypto }),
  sig("crypto.hmac.md5", "string string", "string", { host: crypto }),
  sig("crypto.hmac.sha1", "string string", "string", { host: crypto }),
  sig("crypto.hmac.sha256", "string string", "string", { host: crypto }),
  sig("crypto.hmac.sha512", "string string", "string", { host: crypto }),
  sig("crypto.hmac.equal", "string string", "boolean", { host: crypto }),
  sig("semver.is_valid", "any", "boolean", { host: semver }),
  sig("semver.compare", "string string", "number", { host: semver }),
  sig("graph.reachable", "object array|set", "set", { native: "tg_graph_reachable" }),
  sig("graph.reachable_paths", "object array|set", "set", { native: "tg_graph_reachable_paths" }),
  sig("io.jwt.decode", "string", "array", { host: jwt }),
  sig("io.jwt.decode_verify", "string object", "array", { nondeterministic: true, host: jwtVerify }),
  sig("io.jwt.encode_sign", "object object object", "string", { nondeterministic: true, host: jwtSign }),
  sig("io.jwt.encode_sign_raw", "string string string", "string", { nondeterministic: true, host: jwtSign }),
  sig("io.jwt.verify_hs256", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_hs384", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_hs512", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_rs256", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_rs384", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_rs512", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_ps256", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_ps384", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_ps512", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_es256", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_es384", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_es512", "string string", "boolean", { host: jwtVerify }),
  sig("io.jwt.verify_eddsa", "string string", "boolean", { host: jwtVerify }),
  sig("cast_array", "any", "array", { deprecated: true }),
  sig("cast_set", "any", "set", { deprecated: true }),
  sig("cast_string", "any", "string", { deprecated: true }),
  sig("cast_boolean", "any", "boolean", { deprecated: true }),
  sig("cast_null", "any", "null", { deprecated: true }),
  sig("cast_object", "any", "object", { deprecated: true }),
  sig("set_diff", "set set", "set", { deprecated: true }),
  sig("re_match", "string string", "boolean", { deprecated: true }),
  sig("net.cidr_overlap", "string string", "boolean", { deprecated: true }),
];
