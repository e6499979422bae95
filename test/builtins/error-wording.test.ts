/**
 * Builtin error texts, word for word as OPA's: each case evaluates one call with strict
 * builtin errors on both engines (the opa-wasm SDK and the fast engine) and compares
 * the message after its `file:row:col:` location with the text OPA produces, which is
 * `<code>: <builtin>: <text>`; `from` names the OPA source the text comes from.
 * Operands come from `input` so that the type checker cannot reject them first.
 *
 * `known` marks a difference kept for now, with the reason; such a case runs as
 * skipped (it does not count as passed).
 */
import { describe, expect, it } from "vitest";
import { FastPolicy } from "../../src/policy/fast-engine.js";
import { compileWithQuery, evaluateWasm, errorText } from "../conformance/engine.js";

interface Case {
  /** The call, as a Rego expression. */
  readonly call: string;
  readonly input?: Record<string, unknown>;
  /** OPA's message: `<code>: <builtin>: <text>`. */
  readonly opa: string;
  /** OPA source file of the text (open-policy-agent/opa). */
  readonly from: string;
  readonly known?: string;
}

const T = "v1/topdown/";

const cases: Case[] = [
  // encoding.go: json.unmarshal returns Go's encoding/json decoder errors (util.UnmarshalJSON)
  { call: "json.unmarshal(input.s)", input: { s: '{"a":1,}' }, opa: "eval_builtin_error: json.unmarshal: invalid character '}' looking for beginning of object key string", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: '{"a" 1}' }, opa: "eval_builtin_error: json.unmarshal: invalid character '1' after object key", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: '{"a":1 "b":2}' }, opa: "eval_builtin_error: json.unmarshal: invalid character '\"' after object key:value pair", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: "[1 2]" }, opa: "eval_builtin_error: json.unmarshal: invalid character '2' after array element", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: "[1,]" }, opa: "eval_builtin_error: json.unmarshal: invalid character ']' looking for beginning of value", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: "nul!" }, opa: "eval_builtin_error: json.unmarshal: invalid character '!' in literal null (expecting 'l')", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: '"a\tb"' }, opa: "eval_builtin_error: json.unmarshal: invalid character '\\t' in string literal", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: '"\\x"' }, opa: "eval_builtin_error: json.unmarshal: invalid character 'x' in string escape code", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: '"\\u12g4"' }, opa: "eval_builtin_error: json.unmarshal: invalid character 'g' in \\u hexadecimal character escape", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: "-x" }, opa: "eval_builtin_error: json.unmarshal: invalid character 'x' in numeric literal", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: "1.x" }, opa: "eval_builtin_error: json.unmarshal: invalid character 'x' after decimal point in numeric literal", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: "1ex" }, opa: "eval_builtin_error: json.unmarshal: invalid character 'x' in exponent of numeric literal", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: "é" }, opa: "eval_builtin_error: json.unmarshal: invalid character 'Ã' looking for beginning of value", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: "\u0001" }, opa: "eval_builtin_error: json.unmarshal: invalid character '\\x01' looking for beginning of value", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: '{"a": tru' }, opa: "eval_builtin_error: json.unmarshal: unexpected EOF", from: `${T}encoding.go` },
  { call: "json.unmarshal(input.s)", input: { s: "  " }, opa: "eval_builtin_error: json.unmarshal: EOF", from: `${T}encoding.go` },
  // v1/util/json.go: what follows the first value is read with decoder.Token()
  { call: "json.unmarshal(input.s)", input: { s: "1 2" }, opa: "eval_builtin_error: json.unmarshal: error: invalid character '2' after top-level value", from: "v1/util/json.go" },
  { call: "json.unmarshal(input.s)", input: { s: '{} "x"' }, opa: "eval_builtin_error: json.unmarshal: error: invalid character 'x' after top-level value", from: "v1/util/json.go" },
  { call: "json.unmarshal(input.s)", input: { s: "[] [" }, opa: "eval_builtin_error: json.unmarshal: error: invalid character '[' after top-level value", from: "v1/util/json.go" },
  { call: "json.unmarshal(input.s)", input: { s: "1 true" }, opa: "eval_builtin_error: json.unmarshal: error: invalid character '%!s(bool=true)' after top-level value", from: "v1/util/json.go" },
  { call: "json.unmarshal(input.s)", input: { s: "{} }" }, opa: "eval_builtin_error: json.unmarshal: invalid character '}' looking for beginning of value", from: "v1/util/json.go" },
  { call: "json.unmarshal(input.s)", input: { s: "1x" }, opa: "eval_builtin_error: json.unmarshal: invalid character 'x' looking for beginning of value", from: "v1/util/json.go" },
  { call: "json.unmarshal(input.s)", input: { s: 7 }, opa: "eval_type_error: json.unmarshal: operand 1 must be string but got number", from: `${T}builtins/builtins.go` },
  // encoding.go: base64 decoding is Go's encoding/base64 (CorruptInputError offsets)
  { call: "base64.decode(input.s)", input: { s: "a!bc" }, opa: "eval_builtin_error: base64.decode: illegal base64 data at input byte 1", from: `${T}encoding.go` },
  { call: "base64.decode(input.s)", input: { s: "YQ" }, opa: "eval_builtin_error: base64.decode: illegal base64 data at input byte 0", from: `${T}encoding.go` },
  { call: "base64.decode(input.s)", input: { s: "YWJjZA=x" }, opa: "eval_builtin_error: base64.decode: illegal base64 data at input byte 6", from: `${T}encoding.go` },
  { call: "base64.decode(input.s)", input: { s: "YQ==YQ==" }, opa: "eval_builtin_error: base64.decode: illegal base64 data at input byte 4", from: `${T}encoding.go` },
  { call: "base64.decode(input.s)", input: { s: "YQ=" }, opa: "eval_builtin_error: base64.decode: illegal base64 data at input byte 3", from: `${T}encoding.go` },
  { call: "base64.decode(input.s)", input: { s: "ab\ncd==" }, opa: "eval_builtin_error: base64.decode: illegal base64 data at input byte 5", from: `${T}encoding.go` },
  { call: "base64.decode(input.s)", input: { s: "Y=Q=" }, opa: "eval_builtin_error: base64.decode: illegal base64 data at input byte 1", from: `${T}encoding.go` },
  { call: "base64url.decode(input.s)", input: { s: "abcde" }, opa: "eval_builtin_error: base64url.decode: illegal base64url string: abcde", from: `${T}encoding.go` },
  { call: "base64url.decode(input.s)", input: { s: "ab=c" }, opa: "eval_builtin_error: base64url.decode: illegal base64 data at input byte 2", from: `${T}encoding.go` },
  { call: "base64url.decode(input.s)", input: { s: "a+bc" }, opa: "eval_builtin_error: base64url.decode: illegal base64 data at input byte 1", from: `${T}encoding.go` },
  // encoding.go: json.marshal_with_options (NewOperandErr texts; %s of an ast.String quotes it)
  { call: "json.marshal_with_options(1, input.o)", input: { o: { x: 1 } }, opa: "eval_type_error: json.marshal_with_options: operand 2 object contained unknown key \"x\"", from: `${T}encoding.go` },
  { call: "json.marshal_with_options(1, input.o)", input: { o: { pretty: 1 } }, opa: "eval_type_error: json.marshal_with_options: operand 2 key \"pretty\" failed cast to bool", from: `${T}encoding.go` },
  { call: "json.marshal_with_options(1, input.o)", input: { o: { indent: 1 } }, opa: "eval_type_error: json.marshal_with_options: operand 2 key \"indent\" failed cast to string: operand 0 must be string but got number", from: `${T}encoding.go` },
  { call: "json.marshal_with_options(1, input.o)", input: { o: { indent: "x", prefix: 2 } }, opa: "eval_type_error: json.marshal_with_options: operand 2 key \"prefix\" failed cast to string: operand 1 must be string but got number", from: `${T}encoding.go` },
  // parse_units.go / parse_bytes.go: the errors carry the builtin's name, and the evaluator adds it again
  { call: "units.parse(input.s)", input: { s: "1 k" }, opa: "eval_builtin_error: units.parse: units.parse: spaces not allowed in resource strings", from: `${T}parse_units.go` },
  { call: "units.parse(input.s)", input: { s: "k" }, opa: "eval_builtin_error: units.parse: units.parse: no amount provided", from: `${T}parse_units.go` },
  { call: "units.parse(input.s)", input: { s: "1q" }, opa: "eval_builtin_error: units.parse: units.parse: unit q not recognized", from: `${T}parse_units.go` },
  { call: "units.parse(input.s)", input: { s: "..1" }, opa: "eval_builtin_error: units.parse: units.parse: could not parse amount to a number", from: `${T}parse_units.go` },
  { call: "units.parse(input.s)", input: { s: "1e1234567" }, opa: "eval_builtin_error: units.parse: units.parse: exponent too large", from: `${T}parse_units.go` },
  { call: "units.parse_bytes(input.s)", input: { s: "1 kb" }, opa: "eval_builtin_error: units.parse_bytes: units.parse_bytes: spaces not allowed in resource strings", from: `${T}parse_bytes.go` },
  { call: "units.parse_bytes(input.s)", input: { s: "kb" }, opa: "eval_builtin_error: units.parse_bytes: units.parse_bytes: no byte amount provided", from: `${T}parse_bytes.go` },
  { call: "units.parse_bytes(input.s)", input: { s: "1q" }, opa: "eval_builtin_error: units.parse_bytes: units.parse_bytes: byte unit q not recognized", from: `${T}parse_bytes.go` },
  { call: "units.parse_bytes(input.s)", input: { s: "1..2" }, opa: "eval_builtin_error: units.parse_bytes: units.parse_bytes: could not parse byte amount to a number", from: `${T}parse_bytes.go` },
  { call: "units.parse_bytes(input.s)", input: { s: "1e9999999kb" }, opa: "eval_builtin_error: units.parse_bytes: units.parse_bytes: exponent too large", from: `${T}parse_bytes.go` },
  // numbers.go
  { call: "numbers.range(1, input.f)", input: { f: 1.5 }, opa: "eval_type_error: numbers.range: operand 2 must be integer number but got floating-point number", from: `${T}numbers.go` },
  { call: "numbers.range(input.s, 3)", input: { s: "x" }, opa: "eval_type_error: numbers.range: operand 1 must be integer but got string", from: `${T}builtins/builtins.go (BigIntOperand)` },
  { call: "numbers.range(1, input.s)", input: { s: "x" }, opa: "eval_type_error: numbers.range: operand 2 must be integer but got string", from: `${T}builtins/builtins.go (BigIntOperand)` },
  { call: "numbers.range(input.f, input.s)", input: { f: 1.5, s: "x" }, opa: "eval_type_error: numbers.range: operand 1 must be integer number but got floating-point number", from: `${T}numbers.go (operand 1 read first)` },
  { call: "rand.intn(\"x\", input.f)", input: { f: 1.5 }, opa: "eval_type_error: rand.intn: operand 2 must be integer number but got floating-point number", from: `${T}numbers.go` },
  // arithmetic.go
  { call: "div(1, input.n)", input: { n: 0 }, opa: "eval_builtin_error: div: divide by zero", from: `${T}arithmetic.go` },
  { call: "rem(1, input.n)", input: { n: 0 }, opa: "eval_builtin_error: rem: modulo by zero", from: `${T}arithmetic.go` },
  { call: "rem(input.f, 1)", input: { f: 1.5 }, opa: "eval_builtin_error: rem: modulo on floating-point number", from: `${T}arithmetic.go` },
  { call: "abs(input.s)", input: { s: "x" }, opa: "eval_type_error: abs: operand 1 must be number but got string", from: `${T}arithmetic.go` },
  // casts.go
  { call: "to_number(input.s)", input: { s: "x" }, opa: "eval_builtin_error: to_number: strconv.ParseFloat: parsing \"x\": invalid syntax", from: `${T}casts.go` },
  { call: "to_number(input.s)", input: { s: "1e400" }, opa: "eval_builtin_error: to_number: strconv.ParseFloat: parsing \"1e400\": value out of range", from: `${T}casts.go` },
  { call: "to_number(input.s)", input: { s: "inf" }, opa: "eval_type_error: to_number: operand 1 must be valid number string but got string", from: `${T}casts.go` },
  { call: "to_number(input.s)", input: { s: "-1e400" }, opa: "eval_builtin_error: to_number: strconv.ParseFloat: parsing \"-1e400\": value out of range", from: `${T}casts.go` },
  { call: "to_number(input.s)", input: { s: `1${"0".repeat(309)}` }, opa: `eval_builtin_error: to_number: strconv.ParseFloat: parsing "1${"0".repeat(309)}": value out of range`, from: `${T}casts.go` },
  { call: "to_number(input.s)", input: { s: "+-Infinity" }, opa: "eval_type_error: to_number: operand 1 must be valid number string but got string", from: `${T}casts.go (strings.TrimLeft \"+-\")` },
  { call: "to_number(input.s)", input: { s: "NaN" }, opa: "eval_type_error: to_number: operand 1 must be valid number string but got string", from: `${T}casts.go` },
  { call: "to_number(input.s)", input: { s: "1e" }, opa: "eval_builtin_error: to_number: strconv.ParseFloat: parsing \"1e\": invalid syntax", from: `${T}casts.go` },
  { call: "to_number(input.s)", input: { s: "0x10" }, opa: "eval_builtin_error: to_number: strconv.ParseFloat: parsing \"0x10\": invalid syntax", from: `${T}casts.go (a hexadecimal mantissa needs a p exponent)` },
  { call: "to_number(input.s)", input: { s: "0x1p1024" }, opa: "eval_builtin_error: to_number: strconv.ParseFloat: parsing \"0x1p1024\": value out of range", from: `${T}casts.go` },
  // strings.go
  { call: "indexof(\"abc\", input.s)", input: { s: "" }, opa: "eval_builtin_error: indexof: empty search character", from: `${T}strings.go` },
  { call: "indexof_n(\"abc\", input.s)", input: { s: "" }, opa: "eval_builtin_error: indexof_n: empty search character", from: `${T}strings.go` },
  { call: "substring(\"abc\", input.n, 1)", input: { n: -1 }, opa: "eval_builtin_error: substring: negative offset", from: `${T}strings.go` },
  { call: "format_int(1, input.n)", input: { n: 3 }, opa: "eval_type_error: format_int: operand 2 must be one of {2, 8, 10, 16}", from: `${T}strings.go` },
  { call: "concat(\",\", input.a)", input: { a: [1] }, opa: "eval_type_error: concat: operand 2 must be array of strings but got array containing number", from: `${T}strings.go` },
  { call: "strings.count(input.n, \"a\")", input: { n: 1 }, opa: "eval_type_error: strings.count: operand 1 must be string but got number", from: `${T}strings.go` },
  { call: "strings.replace_n(input.o, \"abc\")", input: { o: { a: 1 } }, opa: "eval_type_error: strings.replace_n: operand 1 non-string value found in pattern object", from: `${T}strings.go` },
  { call: "strings.any_prefix_match(input.n, \"a\")", input: { n: 1 }, opa: "eval_type_error: strings.any_prefix_match: operand 1 must be one of {string, set, array} but got number", from: `${T}strings.go` },
  { call: "substring(\"abc\", input.f, 1)", input: { f: 1.5 }, opa: "eval_type_error: substring: operand 2 must be integer number but got floating-point number", from: `${T}strings.go` },
  { call: "substring(\"abc\", input.f, input.s)", input: { f: 1.5, s: "x" }, opa: "eval_type_error: substring: operand 2 must be integer number but got floating-point number", from: `${T}strings.go (operand 2 read first)` },
  // array.go, object.go, sets.go
  { call: "array.slice([1], input.f, 1)", input: { f: 1.5 }, opa: "eval_type_error: array.slice: operand 2 must be integer number but got floating-point number", from: `${T}array.go` },
  { call: "object.union_n(input.a)", input: { a: [1] }, opa: "eval_type_error: object.union_n: operand 1 must be array of objects but got array containing number", from: `${T}object.go` },
  { call: "union({input.n})", input: { n: 1 }, opa: "eval_type_error: union: operand 1 must be set but got number", from: `${T}sets.go` },
  { call: "intersection({input.n})", input: { n: 1 }, opa: "eval_type_error: intersection: operand 1 must be set but got number", from: `${T}sets.go` },
  { call: "object.get(input.n, \"a\", 1)", input: { n: 1 }, opa: "eval_type_error: object.get: operand 1 must be object but got number", from: `${T}object.go` },
  // time.go
  { call: "time.parse_rfc3339_ns(input.s)", input: { s: "x" }, opa: "eval_builtin_error: time.parse_rfc3339_ns: parsing time \"x\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"x\" as \"2006\"", from: `${T}time.go` },
  { call: "time.parse_ns(\"2006\", input.s)", input: { s: "x" }, opa: "eval_builtin_error: time.parse_ns: parsing time \"x\" as \"2006\": cannot parse \"x\" as \"2006\"", from: `${T}time.go` },
  { call: "time.parse_duration_ns(input.s)", input: { s: "1" }, opa: "eval_builtin_error: time.parse_duration_ns: time: missing unit in duration \"1\"", from: `${T}time.go` },
  { call: "time.parse_duration_ns(input.s)", input: { s: "1x" }, opa: "eval_builtin_error: time.parse_duration_ns: time: unknown unit \"x\" in duration \"1x\"", from: `${T}time.go` },
  { call: "time.parse_duration_ns(input.s)", input: { s: "x" }, opa: "eval_builtin_error: time.parse_duration_ns: time: invalid duration \"x\"", from: `${T}time.go` },
  { call: "time.parse_duration_ns(input.s)", input: { s: "é\"" }, opa: "eval_builtin_error: time.parse_duration_ns: time: invalid duration \"\\xc3\\xa9\\\"\"", from: `${T}time.go (Go's time.quote)` },
  { call: "time.parse_rfc3339_ns(input.s)", input: { s: "2020-01-01T00:00:00Zé" }, opa: "eval_builtin_error: time.parse_rfc3339_ns: parsing time \"2020-01-01T00:00:00Z\\xc3\\xa9\": extra text: \"\\xc3\\xa9\"", from: `${T}time.go (Go's time.quote)` },
  { call: "time.date(input.t)", input: { t: [1, "Bad/Zone"] }, opa: "eval_builtin_error: time.date: unknown time zone Bad/Zone", from: `${T}time.go` },
  { call: "time.date(input.t)", input: { t: "x" }, opa: "eval_type_error: time.date: operand 1 must be either number (ns) or [number (ns), string (tz)] but got string", from: `${T}time.go` },
  { call: "time.format(input.t)", input: { t: [1, 1] }, opa: "eval_type_error: time.format: operand 1 must be string but got number", from: `${T}time.go` },
  { call: "time.add_date(input.f, 0, 0, 0)", input: { f: 1.5 }, opa: "eval_builtin_error: time.add_date: timestamp too big", from: `${T}time.go` },
  { call: "time.add_date(0, input.f, 0, 0)", input: { f: 1.5 }, opa: "eval_type_error: time.add_date: operand 2 must be integer number but got floating-point number", from: `${T}time.go` },
  { call: "time.add_date(0, input.n, 0, 0)", input: { n: 300 }, opa: "eval_builtin_error: time.add_date: time outside of valid range", from: `${T}time.go` },
  // regex.go, regex_template.go
  { call: "regex.match(input.s, \"a\")", input: { s: "[" }, opa: "eval_builtin_error: regex.match: error parsing regexp: missing closing ]: `[`", from: `${T}regex.go` },
  { call: "regex.match(input.n, \"a\")", input: { n: 1 }, opa: "eval_type_error: regex.match: operand 1 must be string but got number", from: `${T}regex.go` },
  { call: "regex.find_n(\"a\", \"a\", input.f)", input: { f: 1.5 }, opa: "eval_type_error: regex.find_n: operand 3 must be integer number but got floating-point number", from: `${T}regex.go` },
  { call: "regex.template_match(\"a\", \"a\", input.s, \"c\")", input: { s: "ab" }, opa: "eval_builtin_error: regex.template_match: start delimiter has to be exactly one character long but is 2 long", from: `${T}regex.go` },
  { call: "regex.template_match(\"a\", \"a\", \"a\", input.s)", input: { s: "cd" }, opa: "eval_builtin_error: regex.template_match: end delimiter has to be exactly one character long but is 1 long", from: `${T}regex.go` },
  { call: "regex.template_match(input.s, \"a\", \"{\", \"}\")", input: { s: "{" }, opa: "eval_builtin_error: regex.template_match: unbalanced braces in \"{\"", from: `${T}regex_template.go` },
  { call: "regex.template_match(input.s, \"a\", \"{\", \"}\")", input: { s: "{\u0001é" }, opa: "eval_builtin_error: regex.template_match: unbalanced braces in \"{\\x01é\"", from: `${T}regex_template.go (%q)` },
  // encoding.go: yaml.unmarshal (sigs.k8s.io/yaml over go-yaml)
  { call: "yaml.unmarshal(input.s)", input: { s: "a: [" }, opa: "eval_builtin_error: yaml.unmarshal: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'", from: `${T}encoding.go` },
  { call: "yaml.unmarshal(input.n)", input: { n: 1 }, opa: "eval_type_error: yaml.unmarshal: operand 1 must be string but got number", from: `${T}encoding.go` },
  // jsonschema.go
  { call: "json.match_schema(input.s, {})", input: { s: "{" }, opa: "eval_builtin_error: json.match_schema: invalid JSON string", from: `${T}jsonschema.go` },
  // glob.go (gobwas/glob syntax errors)
  { call: "glob.match(input.s, [], \"a\")", input: { s: "[a" }, opa: "eval_builtin_error: glob.match: unexpected end of input", from: `${T}glob.go` },
  { call: "glob.match(input.s, [], \"a\")", input: { s: "[]" }, opa: "eval_builtin_error: glob.match: could not parse range", from: `${T}glob.go` },
  { call: "glob.match(input.s, [], \"a\")", input: { s: "[z-a]" }, opa: "eval_builtin_error: glob.match: hi character 'a' should be greater than lo 'z'", from: `${T}glob.go` },
  { call: "glob.match(input.s, [], \"a\")", input: { s: "[a-cx]" }, opa: "eval_builtin_error: glob.match: expected close range character", from: `${T}glob.go` },
  { call: "glob.match(\"a\", input.d, \"a\")", input: { d: [1] }, opa: "eval_type_error: glob.match: operand 2 must be array of strings but got array containing number", from: `${T}glob.go` },
  { call: "glob.match(\"a\", input.d, \"a\")", input: { d: ["ab"] }, opa: "eval_type_error: glob.match: operand 2 must be array of runes but got array containing string", from: `${T}glob.go` },
  { call: "glob.match(\"a\", input.d, \"a\")", input: { d: "x" }, opa: "eval_type_error: glob.match: operand 2 must be one of {array, null} but got string", from: `${T}glob.go` },
  // semver.go
  { call: "semver.compare(input.s, \"1.0.0\")", input: { s: "x" }, opa: "eval_builtin_error: semver.compare: operand 1: string x is not a valid SemVer", from: `${T}semver.go` },
  { call: "semver.compare(\"1.0.0\", input.s)", input: { s: "y" }, opa: "eval_builtin_error: semver.compare: operand 2: string y is not a valid SemVer", from: `${T}semver.go` },
  // cidr.go
  { call: "net.cidr_contains(input.s, \"1.2.3.4\")", input: { s: "bad" }, opa: "eval_builtin_error: net.cidr_contains: invalid CIDR address: bad", from: `${T}cidr.go` },
  { call: "net.cidr_contains(\"10.0.0.0/8\", input.s)", input: { s: "bad" }, opa: "eval_builtin_error: net.cidr_contains: not a valid textual representation of an IP address or CIDR: bad", from: `${T}cidr.go` },
  { call: "net.cidr_contains(\"10.0.0.0/8\", input.n)", input: { n: 1 }, opa: "eval_type_error: net.cidr_contains: operand 1 must be string but got number", from: `${T}cidr.go` },
  { call: "net.cidr_contains(input.c, input.n)", input: { c: "bad", n: 1 }, opa: "eval_builtin_error: net.cidr_contains: invalid CIDR address: bad", from: `${T}cidr.go (operand 1 parsed first)` },
  { call: "net.cidr_intersects(\"10.0.0.0/8\", input.n)", input: { n: 1 }, opa: "eval_type_error: net.cidr_intersects: operand 1 must be string but got number", from: `${T}cidr.go` },
  { call: "net.cidr_intersects(input.s, \"10.0.0.0/8\")", input: { s: "x" }, opa: "eval_builtin_error: net.cidr_intersects: invalid CIDR address: x", from: `${T}cidr.go` },
  // crypto.go, tokens.go
  { call: "crypto.hmac.sha256(input.n, \"k\")", input: { n: 1 }, opa: "eval_type_error: crypto.hmac.sha256: operand 1 must be string but got number", from: `${T}crypto.go` },
  { call: "crypto.sha256(input.n)", input: { n: 1 }, opa: "eval_type_error: crypto.sha256: operand 1 must be string but got number", from: `${T}crypto.go` },
  { call: "io.jwt.decode(input.s)", input: { s: "abc" }, opa: "eval_builtin_error: io.jwt.decode: encoded JWT had no period separators", from: `${T}tokens.go` },
  { call: "io.jwt.decode(input.s)", input: { s: "a.b" }, opa: "eval_builtin_error: io.jwt.decode: encoded JWT must have 3 sections, found 2", from: `${T}tokens.go` },
  { call: "io.jwt.decode(input.s)", input: { s: "a.b.c" }, opa: "eval_builtin_error: io.jwt.decode: JWT header had invalid encoding: illegal base64url string: a", from: `${T}tokens.go` },
  { call: "io.jwt.decode(input.s)", input: { s: "e+yJ.b.c" }, opa: "eval_builtin_error: io.jwt.decode: JWT header had invalid encoding: illegal base64 data at input byte 1", from: `${T}tokens.go` },
  { call: "io.jwt.decode(input.s)", input: { s: `${Buffer.from("{x").toString("base64url")}.e30.c2ln` }, opa: "eval_builtin_error: io.jwt.decode: bad JWT header: invalid JSON: invalid character 'x' looking for beginning of object key string", from: `${T}tokens.go` },
  { call: "io.jwt.decode(input.s)", input: { s: `e30.${Buffer.from("[1]").toString("base64url")}.c2ln` }, opa: "eval_builtin_error: io.jwt.decode: decoded JSON type was not an Object", from: `${T}tokens.go` },
  // strings.go / template.go
  { call: "strings.render_template(input.s, {})", input: { s: "{{.x}}" }, opa: "eval_builtin_error: strings.render_template: template: template:1:2: executing \"template\" at <.x>: map has no entry for key \"x\"", from: `${T}template.go` },
  // aggregates.go, sets.go
  { call: "count(input.n)", input: { n: 1 }, opa: "eval_type_error: count: operand 1 must be one of {array, object, set, string} but got number", from: `${T}aggregates.go` },
  { call: "sum(input.a)", input: { a: ["a"] }, opa: "eval_type_error: sum: operand 1 must be array of numbers but got array containing string", from: `${T}aggregates.go` },
  // bits.go
  { call: "bits.lsh(1, input.n)", input: { n: -1 }, opa: "eval_type_error: bits.lsh: operand 2 must be an unsigned integer number but got a negative integer", from: `${T}bits.go` },
  { call: "bits.or(input.f, 1)", input: { f: 1.5 }, opa: "eval_type_error: bits.or: operand 1 must be integer number but got floating-point number", from: `${T}bits.go` },
];

const withoutLocation = (message: string): string => message.replace(/^[\w./:-]+?:\d+:\d+: /, "");

async function onBothEngines(c: Case): Promise<[string, string]> {
  const compiled = await compileWithQuery([{ file: "t.rego", source: "package t\n" }], "q", `x := ${c.call}`, true, false);
  if (!compiled.ok) throw new Error(compiled.message);
  const input = JSON.stringify(c.input ?? {});
  const sdk = await evaluateWasm(compiled.wasm, "q", {}, input);
  const sdkText = sdk.ok ? `no error: ${JSON.stringify(sdk.resultSet)}` : sdk.message;
  let fastText: string;
  try {
    const fast = await FastPolicy.load(compiled.wasm);
    fastText = `no error: ${JSON.stringify(fast.evaluate(c.input ?? {}, fast.entrypoints["q"]!))}`;
  } catch (err) {
    fastText = errorText(err);
  }
  return [withoutLocation(sdkText), withoutLocation(fastText)];
}

describe("builtin error texts are OPA's, word for word", () => {
  for (const c of cases) {
    const name = `${c.call} ${JSON.stringify(c.input ?? {})} -> ${c.opa}  (${c.from})`;
    if (c.known !== undefined) {
      it.skip(`${name} [known difference: ${c.known}]`, () => undefined);
      continue;
    }
    it(name, async () => {
      const [sdk, fast] = await onBothEngines(c);
      expect(sdk).toBe(c.opa);
      expect(fast).toBe(c.opa);
    });
  }
});
