/**
 * Signatures of OPA's built-in functions, by OPA's own names (v1/ast/builtins.go):
 * infix operators appear under their internal names (`plus`, `equal`,
 * `internal.member_2`, ...). Used to resolve calls, check arity, and reject
 * arguments whose type is settled at compile time.
 *
 * Types are a small language: "any", "number", "string", "boolean", "null",
 * "array", "object", "set", unions written "a|b". `variadic` marks builtins whose
 * argument count is free (print).
 */
export type ValueType = "any" | "number" | "string" | "boolean" | "null" | "array" | "object" | "set";

export interface BuiltinSignature {
  readonly name: string;
  /** Accepted types per argument (a union); empty array = no arguments. */
  readonly args: readonly (readonly ValueType[])[];
  /** Result type; `null` when the builtin returns nothing useful (print). */
  readonly result: readonly ValueType[] | null;
  /** Infix spelling, for messages. */
  readonly infix?: string;
  readonly variadic?: boolean;
  /** Result depends on time/randomness: never constant-folded. */
  readonly nondeterministic?: boolean;
  /** Removed from Rego v1: calls are a `rego_type_error`. */
  readonly deprecated?: boolean;
}

const T = (spec: string): readonly ValueType[] => spec.split("|") as ValueType[];

/** `sig("name", "arg1 arg2", "result")`: args separated by spaces, unions by `|`. */
function sig(name: string, args: string, result: string | null, extra: Partial<BuiltinSignature> = {}): BuiltinSignature {
  return { name, args: args === "" ? [] : args.split(" ").map(T), result: result === null ? null : T(result), ...extra };
}

const COLL = "array|object|set";
const NUM2 = "number number";

const table: readonly BuiltinSignature[] = [
  // unification, assignment, comparison (operands of any type)
  sig("eq", "any any", "boolean", { infix: "=" }),
  sig("assign", "any any", "boolean", { infix: ":=" }),
  sig("equal", "any any", "boolean", { infix: "==" }),
  sig("neq", "any any", "boolean", { infix: "!=" }),
  sig("lt", "any any", "boolean", { infix: "<" }),
  sig("gt", "any any", "boolean", { infix: ">" }),
  sig("lte", "any any", "boolean", { infix: "<=" }),
  sig("gte", "any any", "boolean", { infix: ">=" }),
  sig("internal.member_2", "any any", "boolean", { infix: "in" }),
  sig("internal.member_3", "any any any", "boolean", { infix: "in" }),
  // arithmetic and sets
  sig("plus", NUM2, "number", { infix: "+" }),
  sig("minus", "number|set number|set", "number|set", { infix: "-" }),
  sig("mul", NUM2, "number", { infix: "*" }),
  sig("div", NUM2, "number", { infix: "/" }),
  sig("rem", NUM2, "number", { infix: "%" }),
  sig("and", "set set", "set", { infix: "&" }),
  sig("or", "set set", "set", { infix: "|" }),
  sig("abs", "number", "number"),
  sig("round", "number", "number"),
  sig("ceil", "number", "number"),
  sig("floor", "number", "number"),
  sig("numbers.range", NUM2, "array"),
  sig("numbers.range_step", "number number number", "array"),
  sig("bits.or", NUM2, "number"),
  sig("bits.and", NUM2, "number"),
  sig("bits.negate", "number", "number"),
  sig("bits.xor", NUM2, "number"),
  sig("bits.lsh", NUM2, "number"),
  sig("bits.rsh", NUM2, "number"),
  // aggregates
  sig("count", `${COLL}|string`, "number"),
  sig("sum", "array|set", "number"),
  sig("product", "array|set", "number"),
  sig("max", "array|set", "any"),
  sig("min", "array|set", "any"),
  sig("sort", "array|set", "array"),
  sig("all", "array|set", "boolean", { deprecated: true }),
  sig("any", "array|set", "boolean", { deprecated: true }),
  // arrays
  sig("array.concat", "array array", "array"),
  sig("array.slice", "array number number", "array"),
  sig("array.reverse", "array", "array"),
  // sets
  sig("intersection", "set", "set"),
  sig("union", "set", "set"),
  // objects
  sig("object.get", "object any any", "any"),
  sig("object.keys", "object", "set"),
  sig("object.remove", "object array|object|set", "object"),
  sig("object.filter", "object array|object|set", "object"),
  sig("object.union", "object object", "object"),
  sig("object.union_n", "array", "object"),
  sig("object.subset", "array|object|set array|object|set", "boolean"),
  sig("json.filter", "object array|set", "any"),
  sig("json.remove", "object array|set", "any"),
  sig("json.patch", "any array", "any"),
  // strings
  sig("concat", "string array|set", "string"),
  sig("contains", "string string", "boolean"),
  sig("startswith", "string string", "boolean"),
  sig("endswith", "string string", "boolean"),
  sig("lower", "string", "string"),
  sig("upper", "string", "string"),
  sig("split", "string string", "array"),
  sig("replace", "string string string", "string"),
  sig("strings.replace_n", "object string", "string"),
  sig("strings.reverse", "string", "string"),
  sig("strings.any_prefix_match", "string|array|set string|array|set", "boolean"),
  sig("strings.any_suffix_match", "string|array|set string|array|set", "boolean"),
  sig("strings.count", "string string", "number"),
  sig("strings.render_template", "string object", "string"),
  sig("trim", "string string", "string"),
  sig("trim_left", "string string", "string"),
  sig("trim_right", "string string", "string"),
  sig("trim_prefix", "string string", "string"),
  sig("trim_suffix", "string string", "string"),
  sig("trim_space", "string", "string"),
  sig("substring", "string number number", "string"),
  sig("indexof", "string string", "number"),
  sig("indexof_n", "string string", "array"),
  sig("format_int", "number number", "string"),
  sig("sprintf", "string array", "string"),
  // types
  sig("is_number", "any", "boolean"),
  sig("is_string", "any", "boolean"),
  sig("is_boolean", "any", "boolean"),
  sig("is_array", "any", "boolean"),
  sig("is_set", "any", "boolean"),
  sig("is_object", "any", "boolean"),
  sig("is_null", "any", "boolean"),
  sig("type_name", "any", "string"),
  sig("to_number", "null|boolean|number|string", "number"),
  // encoding
  sig("json.marshal", "any", "string"),
  sig("json.marshal_with_options", "any object", "string"),
  sig("json.unmarshal", "string", "any"),
  sig("json.is_valid", "string", "boolean"),
  sig("base64.encode", "string", "string"),
  sig("base64.decode", "string", "string"),
  sig("base64.is_valid", "string", "boolean"),
  sig("base64url.encode", "string", "string"),
  sig("base64url.encode_no_pad", "string", "string"),
  sig("base64url.decode", "string", "string"),
  sig("urlquery.encode", "string", "string"),
  sig("urlquery.decode", "string", "string"),
  sig("urlquery.encode_object", "object", "string"),
  sig("hex.encode", "string", "string"),
  sig("hex.decode", "string", "string"),
  sig("yaml.marshal", "any", "string"),
  sig("yaml.unmarshal", "string", "any"),
  sig("yaml.is_valid", "string", "boolean"),
  // time
  sig("time.now_ns", "", "number", { nondeterministic: true }),
  sig("time.parse_rfc3339_ns", "string", "number"),
  sig("time.parse_ns", "string string", "number"),
  sig("time.parse_duration_ns", "string", "number"),
  sig("time.format", "number|array", "string"),
  sig("time.add_date", "number number number number", "number"),
  sig("time.date", "number|array", "array"),
  sig("time.clock", "number|array", "array"),
  sig("time.weekday", "number|array", "string"),
  sig("time.diff", "number|array number|array", "array"),
  // matching
  sig("glob.match", "string null|array string", "boolean"),
  sig("glob.quote_meta", "string", "string"),
  sig("regex.match", "string string", "boolean"),
  sig("regex.is_valid", "any", "boolean"),
  sig("regex.find_n", "string string number", "array"),
  sig("regex.find_all_string_submatch_n", "string string number", "array"),
  sig("regex.split", "string string", "array"),
  sig("regex.replace", "string string string", "string"),
  sig("regex.template_match", "string string string string", "boolean"),
  sig("regex.globs_match", "string string", "boolean"),
  // networks, units, misc
  sig("net.cidr_contains", "string string", "boolean"),
  sig("net.cidr_intersects", "string string", "boolean"),
  sig("net.cidr_is_valid", "any", "boolean"),
  sig("net.cidr_expand", "string", "set"),
  sig("net.cidr_merge", "array|set", "set"),
  sig("net.cidr_contains_matches", "string|array|set|object string|array|set|object", "set"),
  sig("units.parse_bytes", "string", "number"),
  sig("units.parse", "string", "number"),
  sig("walk", "any", "array"),
  sig("http.send", "object", "object", { nondeterministic: true }),
  sig("print", "", null, { variadic: true }),
  sig("trace", "string", "boolean"),
  sig("opa.runtime", "", "object", { nondeterministic: true }),
  sig("rand.intn", "string number", "number", { nondeterministic: true }),
  sig("uuid.rfc4122", "string", "string", { nondeterministic: true }),
  sig("uuid.parse", "string", "object"),
  sig("crypto.sha256", "string", "string"),
  sig("crypto.md5", "string", "string"),
  sig("crypto.sha1", "string", "string"),
  sig("crypto.hmac.md5", "string string", "string"),
  sig("crypto.hmac.sha1", "string string", "string"),
  sig("crypto.hmac.sha256", "string string", "string"),
  sig("crypto.hmac.sha512", "string string", "string"),
  sig("crypto.hmac.equal", "string string", "boolean"),
  sig("semver.is_valid", "any", "boolean"),
  sig("semver.compare", "string string", "number"),
  sig("graph.reachable", "object array|set", "set"),
  sig("graph.reachable_paths", "object array|set", "set"),
  sig("io.jwt.decode", "string", "array"),
  sig("io.jwt.decode_verify", "string object", "array", { nondeterministic: true }),
  sig("io.jwt.verify_hs256", "string string", "boolean"),
  sig("io.jwt.verify_hs384", "string string", "boolean"),
  sig("io.jwt.verify_hs512", "string string", "boolean"),
  sig("io.jwt.verify_rs256", "string string", "boolean"),
  sig("io.jwt.verify_rs384", "string string", "boolean"),
  sig("io.jwt.verify_rs512", "string string", "boolean"),
  sig("io.jwt.verify_ps256", "string string", "boolean"),
  sig("io.jwt.verify_ps384", "string string", "boolean"),
  sig("io.jwt.verify_ps512", "string string", "boolean"),
  sig("io.jwt.verify_es256", "string string", "boolean"),
  sig("io.jwt.verify_es384", "string string", "boolean"),
  sig("io.jwt.verify_es512", "string string", "boolean"),
  sig("io.jwt.verify_eddsa", "string string", "boolean"),
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

export const builtins: ReadonlyMap<string, BuiltinSignature> = new Map(table.map((b) => [b.name, b]));

/**
 * OPA builtins toolgate has no declaration for yet: calling one is reported as
 * "OPA builtin X is not supported yet", never as an unknown function.
 */
const UNDECLARED_OPA_BUILTINS: ReadonlySet<string> = new Set([
  "rego.metadata.chain", "rego.metadata.rule", "rego.parse_module",
  "json.match_schema", "json.verify_schema",
  "io.jwt.encode_sign", "io.jwt.encode_sign_raw",
  "crypto.sha512", "crypto.x509.parse_certificates", "crypto.x509.parse_and_verify_certificates",
  "crypto.x509.parse_and_verify_certificates_with_options", "crypto.x509.parse_certificate_request",
  "crypto.x509.parse_keypair", "crypto.x509.parse_rsa_private_key", "crypto.parse_private_keys",
  "net.lookup_ip_addr", "net.cidr_merge", "net.cidr_expand", "providers.aws.sign_req", "time.format_ns",
  "strings.replace_n", "object.subset", "base64url.encode_no_pad", "hex.encode", "hex.decode", "yaml.marshal",
  "yaml.unmarshal", "yaml.is_valid", "urlquery.encode", "urlquery.decode", "urlquery.encode_object",
  "urlquery.decode_object", "numbers.range_step", "units.parse", "glob.quote_meta",
]);

/** True for a real OPA builtin without a declaration here (see UNDECLARED_OPA_BUILTINS). */
export function isUndeclaredOpaBuiltin(name: string): boolean {
  return UNDECLARED_OPA_BUILTINS.has(name) && !builtins.has(name);
}

export function lookupBuiltin(name: string): BuiltinSignature | undefined {
  return builtins.get(name);
}
