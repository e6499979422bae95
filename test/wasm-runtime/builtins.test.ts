import { describe, expect, it } from "vitest";
import { loadRuntime, AbortError } from "./harness.js";

const rt = loadRuntime();

/** Calls a builtin export with JSON operands ("set:[...]" builds a set); returns JSON or undefined. */
function call(exportName: string, ...args: string[]): string | undefined {
  rt.setStrict(false);
  return rt.dump(rt.call(exportName, ...args.map(operand)));
}

function operand(json: string): number {
  if (json.startsWith("set:")) {
    const set = rt.call("opa_set");
    const arr = rt.parse(json.slice(4));
    for (let i = 0; i < rt.call("opa_value_length", arr); i++) rt.call("opa_set_add", set, rt.call("tg_value_at", arr, i));
    return set;
  }
  const v = rt.parse(json);
  if (v === 0) throw new Error(`bad operand ${json}`);
  return v;
}

function strictError(exportName: string, ...args: string[]): string {
  rt.setStrict(true);
  try {
    rt.call(exportName, ...args.map(operand));
  } catch (e) {
    if (e instanceof AbortError) return e.message;
    throw e;
  } finally {
    rt.setStrict(false);
  }
  return "no error";
}

// [export, operands, expected JSON result or undefined]
const cases: [string, string[], string | undefined][] = [
  ["opa_cmp_eq", ["1", "1.0"], "true"],
  ["opa_cmp_neq", ['"a"', '"b"'], "true"],
  ["opa_cmp_lt", ["null", "false"], "true"],
  ["opa_cmp_gte", ["[1]", "[1]"], "true"],
  ["opa_cmp_gt", ['"a"', "1"], "true"],
  ["opa_arith_plus", ["1", "2"], "3"],
  ["opa_arith_plus", ["0.1", "0.2"], "0.30000000000000004"],
  ["opa_arith_plus", ["9223372036854775807", "1"], "9223372036854775808"],
  ["opa_arith_plus", ["-9223372036854775808", "-1"], "-9223372036854775809"],
  ["opa_arith_plus", ["123456789012345678901234567890", "-123456789012345678901234567891"], "-1"],
  ["opa_arith_plus", ['"1"', "2"], undefined],
  ["opa_arith_minus", ["5", "7"], "-2"],
  ["opa_arith_minus", ["set:[1,2,3]", "set:[2]"], "[1,3]"],
  ["opa_arith_minus", ["set:[1]", "1"], undefined],
  ["opa_arith_multiply", ["4294967296", "4294967296"], "18446744073709551616"],
  ["opa_arith_multiply", ["-3", "2.5"], "-7.5"],
  ["opa_arith_multiply", ["99999999999999999999", "99999999999999999999"], "9999999999999999999800000000000000000001"],
  ["opa_arith_divide", ["6", "3"], "2"],
  ["opa_arith_divide", ["1", "4"], "0.25"],
  ["opa_arith_divide", ["1", "0"], undefined],
  ["opa_arith_rem", ["7", "-3"], "1"],
  ["opa_arith_rem", ["-7", "3"], "-1"],
  ["opa_arith_rem", ["7", "0"], undefined],
  ["opa_arith_rem", ["7.5", "2"], undefined],
  ["opa_arith_abs", ["-3"], "3"],
  ["opa_arith_abs", ["-123456789012345678901234567890"], "123456789012345678901234567890"],
  ["opa_arith_round", ["2.5"], "3"],
  ["opa_arith_round", ["-2.5"], "-3"],
  ["opa_arith_round", ["-1.4"], "-1"],
  ["opa_arith_ceil", ["1.2"], "2"],
  ["opa_arith_floor", ["-1.2"], "-2"],
  ["opa_agg_count", ['"héllo"'], "5"],
  ["opa_agg_count", ['{"a":1}'], "1"],
  ["opa_agg_count", ["set:[1,1,2]"], "2"],
  ["opa_agg_count", ["5"], undefined],
  ["opa_agg_sum", ["[1,2.5,3]"], "6.5"],
  ["opa_agg_sum", ["set:[1,2]"], "3"],
  ["opa_agg_sum", ["[]"], "0"],
  ["opa_agg_sum", ['[1,"a"]'], undefined],
  ["opa_agg_product", ["[2,3,4]"], "24"],
  ["opa_agg_max", ['[1,"a",null]'], '"a"'],
  ["opa_agg_min", ["set:[3,1,2]"], "1"],
  ["opa_agg_max", ["[]"], undefined],
  ["opa_agg_sort", ['[3,"b",1,null,"a"]'], '[null,1,3,"a","b"]'],
  ["opa_agg_sort", ["set:[2,1]"], "[1,2]"],
  ["opa_agg_all", ["[true,true]"], "true"],
  ["opa_agg_any", ["[false,1]"], "false"],
  ["opa_strings_concat", ['", "', '["a","b","c"]'], '"a, b, c"'],
  ["opa_strings_concat", ['"-"', 'set:["b","a"]'], '"a-b"'],
  ["opa_strings_concat", ['"-"', "[]"], '""'],
  ["opa_strings_concat", ['"-"', '["a",1]'], undefined],
  ["opa_strings_contains", ['"abcdef"', '"cd"'], "true"],
  ["opa_strings_contains", ['"abc"', '""'], "true"],
  ["opa_strings_startswith", ['"abc"', '"ab"'], "true"],
  ["opa_strings_startswith", ['"abc"', '"abcd"'], "false"],
  ["opa_strings_endswith", ['"abc"', '"bc"'], "true"],
  ["opa_strings_lower", ['"AbC ÄÖ"'], '"abc äö"'],
  ["opa_strings_upper", ['"abc äö ж"'], '"ABC ÄÖ Ж"'],
  ["opa_strings_upper", ['"łódź ščř"'], '"ŁÓDŹ ŠČŘ"'],
  ["opa_strings_lower", ['"ŁÓDŹ ŠČŘ Ĳ"'], '"łódź ščř ĳ"'],
  ["opa_strings_split", ['"a,b,,c"', '","'], '["a","b","","c"]'],
  ["opa_strings_split", ['"héj"', '""'], '["h","é","j"]'],
  ["opa_strings_split", ['""', '","'], '[""]'],
  ["opa_strings_replace", ['"aaa"', '"a"', '"bb"'], '"bbbbbb"'],
  ["opa_strings_replace", ['"abc"', '""', '"-"'], '"-a-b-c-"'],
  ["opa_strings_replace_n", ['{"a":"1","b":"2"}', '"abcab"'], '"12c12"'],
  ["opa_strings_trim", ['"xxhixx"', '"x"'], '"hi"'],
  ["opa_strings_trim_left", ['"xxhixx"', '"x"'], '"hixx"'],
  ["opa_strings_trim_right", ['"xxhixx"', '"x"'], '"xxhi"'],
  ["opa_strings_trim_prefix", ['"prefix-x"', '"prefix-"'], '"x"'],
  ["opa_strings_trim_suffix", ['"x.txt"', '".txt"'], '"x"'],
  ["opa_strings_trim_space", ['"  \\t hi \\n"'], '"hi"'],
  ["opa_strings_substring", ['"héllo"', "1", "3"], '"éll"'],
  ["opa_strings_substring", ['"hello"', "2", "-1"], '"llo"'],
  ["opa_strings_substring", ['"hello"', "9", "1"], '""'],
  ["opa_strings_indexof", ['"héllo"', '"l"'], "2"],
  ["opa_strings_indexof", ['"hello"', '"z"'], "-1"],
  ["opa_strings_reverse", ['"héllo"'], '"olléh"'],
  ["opa_strings_format_int", ["255", "16"], '"ff"'],
  ["opa_strings_format_int", ["-5.5", "2"], '"-101"'],
  ["opa_strings_format_int", ["-15.9", "16"], '"-f"'],
  ["opa_strings_format_int", ["5", "3"], undefined],
  ["opa_sets_union", ["set:[]"], "[]"],
  ["opa_set_union", ["set:[1,3]", "set:[2,3]"], "[1,2,3]"],
  ["opa_set_intersection", ["set:[1,2,3]", "set:[2,3,4]"], "[2,3]"],
  ["tg_object_get", ['{"a":1}', '"a"', "0"], "1"],
  ["tg_object_get", ['{"a":1}', '"b"', "0"], "0"],
  ["tg_object_get", ['{"a":{"b":[{"c":1}]}}', '["a","b",0,"c"]', "2"], "1"],
  ["tg_object_get", ['{"a":1}', "[]", "2"], '{"a":1}'],
  ["tg_object_get", ['"x"', '"a"', "0"], undefined],
  ["tg_object_keys", ['{"b":1,"a":2}'], '["a","b"]'],
  ["tg_object_remove", ['{"a":1,"b":2,"c":3}', '["a"]'], '{"b":2,"c":3}'],
  ["tg_object_remove", ['{"a":1,"b":2}', '{"b":0}'], '{"a":1}'],
  ["tg_object_filter", ['{"a":1,"b":2,"c":3}', 'set:["a","c"]'], '{"a":1,"c":3}'],
  ["tg_object_union", ['{"a":{"x":1},"b":1}', '{"a":{"y":2},"b":2}'], '{"a":{"x":1,"y":2},"b":2}'],
  ["tg_object_union_n", ['[{"a":1},{"a":2,"b":1},{"c":3}]'], '{"a":2,"b":1,"c":3}'],
  ["opa_array_concat", ["[1]", "[2,3]"], "[1,2,3]"],
  ["opa_array_slice", ["[1,2,3,4]", "1", "3"], "[2,3]"],
  ["opa_array_slice", ["[1,2,3,4]", "-5", "10"], "[1,2,3,4]"],
  ["opa_array_slice", ["[1,2,3,4]", "3", "1"], "[]"],
  ["tg_array_reverse", ["[1,2,3]"], "[3,2,1]"],
  ["opa_types_is_number", ["1.5"], "true"],
  ["opa_types_is_string", ["1"], "false"],
  ["opa_types_is_set", ["set:[]"], "true"],
  ["opa_types_name", ["set:[]"], '"set"'],
  ["opa_types_name", ["null"], '"null"'],
  ["tg_opa_runtime", [], "{}"],
  ["opa_to_number", ['"10"'], "10"],
  ["opa_to_number", ['"-0.5e1"'], "-5"],
  ["opa_to_number", ['"+007"'], "7"],
  ["opa_to_number", ['".5"'], "0.5"],
  ["opa_to_number", ["true"], "1"],
  ["opa_to_number", ["null"], "0"],
  ["opa_to_number", ['"x1"'], undefined],
  ["opa_to_number", ['"12345678901234567890123"'], "12345678901234567890123"],
  // Go strconv.ParseFloat syntax: "5." and ".5" are numbers, exponents of any case, one sign
  ["opa_to_number", ['"5."'], "5"],
  ["opa_to_number", ['"1e3"'], "1000"],
  ["opa_to_number", ['"1E+3"'], "1000"],
  ["opa_to_number", ['"-0"'], "0"],
  ["opa_to_number", ['"1e-400"'], "0"],
  ["opa_to_number", ['"1.7976931348623157e308"'], "1.7976931348623157e+308"],
  ["opa_to_number", ['"1e400"'], undefined],
  ["opa_to_number", ['"-1e400"'], undefined],
  ["opa_to_number", ['"inf"'], undefined],
  ["opa_to_number", ['"."'], undefined],
  ["opa_to_number", ['"1e"'], undefined],
  ["opa_to_number", ['"+-1"'], undefined],
  ["opa_to_number", ['"1_000"'], undefined],
  ["opa_to_number", ['" 1"'], undefined],
  // the hexadecimal form: 0x mantissa, a p exponent required, underscores only between digits or after 0x
  ["opa_to_number", ['"0x1p4"'], "16"],
  ["opa_to_number", ['"-0X1.8P1"'], "-3"],
  ["opa_to_number", ['"0x.8p0"'], "0.5"],
  ["opa_to_number", ['"0x1p-2"'], "0.25"],
  ["opa_to_number", ['"0x_1_0p0"'], "16"],
  ["opa_to_number", ['"0x1p1_0"'], "1024"],
  ["opa_to_number", ['"0x1.fffffffffffff8p0"'], "2"],
  ["opa_to_number", ['"0x1.fffffffffffffp1023"'], "1.7976931348623157e+308"],
  ["opa_to_number", ['"0x1p-1074"'], "5e-324"],
  ["opa_to_number", ['"0x1p-2000"'], "0"],
  ["opa_to_number", ['"0x10"'], undefined],
  ["opa_to_number", ['"0xp1"'], undefined],
  ["opa_to_number", ['"0x1p"'], undefined],
  ["opa_to_number", ['"0x1e1"'], undefined],
  ["opa_to_number", ['"0x1__0p0"'], undefined],
  ["opa_to_number", ['"0x1_p0"'], undefined],
  ["opa_to_number", ['"0x1p_1"'], undefined],
  ["opa_to_number", ['"0x1p1024"'], undefined],
  ["opa_numbers_range", ["1", "4"], "[1,2,3,4]"],
  ["opa_numbers_range", ["2", "-1"], "[2,1,0,-1]"],
  ["opa_numbers_range", ["3.14", "4"], undefined],
  ["opa_json_marshal", ['{"b":[1,"x"],"a":null}'], '"{\\"a\\":null,\\"b\\":[1,\\"x\\"]}"'],
  ["opa_json_marshal", ["set:[2,1]"], '"[1,2]"'],
  ["opa_json_unmarshal", ['"{\\"a\\":[1,2]}"'], '{"a":[1,2]}'],
  ["opa_json_unmarshal", ['"{a:1}"'], undefined],
  ["tg_json_is_valid", ['"[1,2]"'], "true"],
  ["tg_json_is_valid", ['"[1,2"'], "false"],
  ["opa_base64_encode", ['"hello"'], '"aGVsbG8="'],
  ["opa_base64_decode", ['"aGVsbG8="'], '"hello"'],
  ["opa_base64_decode", ['"aGVsbG8"'], undefined],
  ["opa_base64_is_valid", ['"aGk="'], "true"],
  ["opa_base64_is_valid", ['"a!=="'], "false"],
  ["opa_base64_url_encode", ['"\\u00ff\\u00fe"'], '"w7_Dvg=="'],
  ["tg_base64_url_encode_no_pad", ['"\\u00ff\\u00fe"'], '"w7_Dvg"'],
  ["opa_base64_url_decode", ['"w7_Dvg"'], '"ÿþ"'],
  ["opa_base64_url_decode", ['"w7_Dvg=="'], '"ÿþ"'],
  ["tg_member_2", ["2", "[1,2]"], "true"],
  ["tg_member_2", ["2", 'set:[1]'], "false"],
  ["tg_member_2", ["1", '{"a":1}'], "true"],
  ["tg_member_2", ['"a"', '{"a":1}'], "false"],
  ["tg_member_3", ['"a"', "1", '{"a":1}'], "true"],
  ["tg_member_3", ["1", '"y"', '["x","y"]'], "true"],
  ["tg_member_3", ["0", '"y"', '["x","y"]'], "false"],
];

describe("native builtins", () => {
  it.each(cases)("%s(%j) = %s", (name, args, want) => {
    expect(call(name, ...args)).toBe(want);
  });
});

describe("strict builtin errors", () => {
  it.each([
    ["opa_agg_count", ["null"], "unknown:0:0: eval_type_error: count: operand 1 must be one of {array, object, set, string} but got null"],
    ["opa_arith_minus", ["set:[1]", "1"], "eval_type_error: minus: operand 2 must be set but got number"],
    ["opa_arith_minus", ["1", "set:[1]"], "eval_type_error: minus: operand 2 must be number but got set"],
    ["opa_arith_divide", ["1", "0"], "eval_builtin_error: div: divide by zero"],
    ["opa_arith_rem", ["1", "0"], "eval_builtin_error: rem: modulo by zero"],
    ["tg_object_get", ['"x"', '"a"', "0"], "eval_type_error: object.get: operand 1 must be object but got string"],
    ["tg_object_union", ['{}', "[]"], "eval_type_error: object.union: operand 2 must be object but got array"],
    ["opa_array_concat", ["{}", "[]"], "eval_type_error: array.concat: operand 1 must be array but got object"],
    ["opa_numbers_range", ["3.14", "4"], "eval_type_error: numbers.range: operand 1 must be integer number but got floating-point number"],
    ["opa_strings_format_int", ["1", "3"], "eval_type_error: format_int: operand 2 must be one of {2, 8, 10, 16}"],
    ["opa_to_number", ['"abc"'], 'eval_builtin_error: to_number: strconv.ParseFloat: parsing "abc": invalid syntax'],
    ["opa_to_number", ['"1e400"'], 'eval_builtin_error: to_number: strconv.ParseFloat: parsing "1e400": value out of range'],
    ["opa_to_number", ['"-1e400"'], 'eval_builtin_error: to_number: strconv.ParseFloat: parsing "-1e400": value out of range'],
    ["opa_to_number", [`"1${"0".repeat(400)}"`], `eval_builtin_error: to_number: strconv.ParseFloat: parsing "1${"0".repeat(400)}": value out of range`],
    ["opa_to_number", ['"Infinity"'], "eval_type_error: to_number: operand 1 must be valid number string but got string"],
    ["opa_to_number", ['"-NaN"'], "eval_type_error: to_number: operand 1 must be valid number string but got string"],
    ["opa_to_number", ['"+-inf"'], "eval_type_error: to_number: operand 1 must be valid number string but got string"],
    ["opa_to_number", ['"infinit"'], 'eval_builtin_error: to_number: strconv.ParseFloat: parsing "infinit": invalid syntax'],
    ["opa_to_number", ['"1e"'], 'eval_builtin_error: to_number: strconv.ParseFloat: parsing "1e": invalid syntax'],
    ["opa_to_number", ['"0x1p1024"'], 'eval_builtin_error: to_number: strconv.ParseFloat: parsing "0x1p1024": value out of range'],
    ["opa_to_number", ['"0x10"'], 'eval_builtin_error: to_number: strconv.ParseFloat: parsing "0x10": invalid syntax'],
  ] as const)("%s(%j) aborts with %s", (name, args, want) => {
    expect(strictError(name, ...args)).toContain(want);
  });

  it("uses the location given by tg_set_location", () => {
    const file = rt.call("opa_malloc", 16);
    new Uint8Array(rt.memory.buffer).set(new TextEncoder().encode("p.rego\0"), file);
    rt.call("tg_set_location", file, 7, 3);
    expect(strictError("opa_agg_count", "1")).toMatch(/^p\.rego:7:3: eval_type_error: count: /);
    const loc = rt.call("tg_location");
    const bytes = new Uint8Array(rt.memory.buffer);
    let end = loc;
    while (bytes[end] !== 0) end++;
    expect(new TextDecoder().decode(bytes.subarray(loc, end))).toBe("p.rego:7:3");
    rt.call("tg_set_location", 0, 0, 0);
    expect(rt.call("tg_location")).toBe(0);
  });
});

describe("more native builtins", () => {
  it.each([
    ["tg_strings_any_prefix_match", ['"abc"', '"ab"'], "true"],
    ["tg_strings_any_prefix_match", ['["x","abc"]', 'set:["zz","a"]'], "true"],
    ["tg_strings_any_prefix_match", ['["x"]', '["y"]'], "false"],
    ["tg_strings_any_suffix_match", ['"a/b/c"', '["/c"]'], "true"],
    ["tg_strings_any_suffix_match", ['[1]', '"x"'], undefined],
  ] as [string, string[], string | undefined][])("%s(%j) = %s", (name, args, want) => {
    expect(call(name, ...args)).toBe(want);
  });

  it("reports element types for any_prefix_match operands", () => {
    expect(strictError("tg_strings_any_prefix_match", '["a",1]', '"x"')).toContain(
      "eval_type_error: strings.any_prefix_match: operand 1 must be array of strings but got array containing number",
    );
    expect(strictError("tg_strings_any_prefix_match", '"a"', "1")).toContain(
      "strings.any_prefix_match: operand 2 must be one of {string, set, array} but got number",
    );
  });
});

describe("sprintf (Go fmt semantics on OPA's argument kinds)", () => {
  it.each([
    ["hi %s", '["there"]', "hi there"],
    ["hi %02d", "[5]", "hi 05"],
    ["%s", "[1208925819614629174706175]", "1208925819614629174706175"],
    ["%d|%5d|%-5d|%+d", "[-12,42,42,5]", "-12|   42|42   |+5"],
    ["%x %X %o %b %#x", "[255,255,8,5,255]", "ff FF 10 101 0xff"],
    ["%.2f %f %.0f", "[3.14159,1.5,2.5]", "3.14 1.500000 2"],
    ["%.2f %.1f %.1f", "[0.125,0.25,0.35]", "0.12 0.2 0.3"],
    ["%e %E %.2e", "[123456.789,0.000123,0.0]", "1.234568e+05 1.230000E-04 0.00e+00"],
    ["%g %g %g %g", "[0.00001,100000.0,1000000.0,1.5]", "1e-05 100000 1e+06 1.5"],
    ["%.3g %.3g %.10g", "[1.0,1234.5678,0.1]", "1 1.23e+03 0.1"],
    ["%v %v %v", "[1.5,1e21,1000000.5]", "1.5 1e+21 1.0000005e+06"],
    ["%05.1f|%8.3f|%-8.2f|", "[-2.34,3.14159,1.0]", "-02.3|   3.142|1.00    |"],
    ["%v %v %s %v", '[[1,"a"],{"a":true},null,true]', '[1, "a"] {"a": true} null true'],
    ["%q %10.3s| %x", '["a\\"b\\n","abcdef","hi"]', '"a\\"b\\n"        abc| 6869'],
    ["%d %s %t", '["x",1,true]', "%!d(string=x) %!s(int64=1) %!t(string=true)"],
    ["%d", "[1.5]", "%!d(float64=1.5)"],
    ["%d %d", "[1]", "1 %!d(MISSING)"],
    ["%d", '[1,"a"]', "1%!(EXTRA string=a)"],
    ["100%% %c", "[233]", "100% é"],
    ["%v", '["é"]', "é"],
  ])("sprintf(%j, %s) = %j", (format, args, want) => {
    expect(call("opa_strings_sprintf", JSON.stringify(format), args)).toBe(JSON.stringify(want));
  });
});

describe("json.marshal_with_options", () => {
  it.each([
    ['[1,2]', '{"indent":"  "}', "[\n  1,\n  2\n]"],
    ['[1,2]', "{}", "[1,2]"],
    ['{"foo":"bar","bar":"baz"}', '{"prefix":"JSON => "}', 'JSON => {\nJSON => \t"bar": "baz",\nJSON => \t"foo": "bar"\nJSON => }'],
    ["[]", '{"indent":"    ","prefix":"---"}', "---[]"],
    ["[[[]]]", '{"pretty":true}', "[\n\t[\n\t\t[]\n\t]\n]"],
    ['[1]', '{"pretty":false,"prefix":"NO!","indent":"BAD!"}', "[1]"],
  ])("marshal_with_options(%s, %s)", (value, opts, want) => {
    expect(JSON.parse(call("tg_json_marshal_with_options", value, opts) ?? "null")).toBe(want);
  });

  it("rejects unknown option keys under strict errors", () => {
    expect(strictError("tg_json_marshal_with_options", "[1]", '{"include_winning_lottery_numbers":true}')).toContain(
      'eval_type_error: json.marshal_with_options: operand 2 object contained unknown key "include_winning_lottery_numbers"',
    );
  });

  it("names a cast failure with the option key's index in the options' key order, as OPA does", () => {
    expect(strictError("tg_json_marshal_with_options", "[1]", '{"indent":"x","prefix":2}')).toContain(
      'eval_type_error: json.marshal_with_options: operand 2 key "prefix" failed cast to string: operand 1 must be string but got number',
    );
    expect(strictError("tg_json_marshal_with_options", "[1]", '{"pretty":null}')).toContain(
      'eval_type_error: json.marshal_with_options: operand 2 key "pretty" failed cast to bool',
    );
  });
});

describe("net.cidr_contains", () => {
  it.each([
    ['"10.0.0.0/8"', '"10.1.0.0/24"', "true"],
    ['"172.17.0.0/24"', '"172.17.0.0/16"', "false"],
    ['"10.0.0.0/8"', '"10.1.1.1/32"', "true"],
    ['"10.0.0.0/8"', '"10.1.2.3"', "true"],
    ['"10.0.0.0/8"', '"11.1.2.3"', "false"],
    ['"192.168.1.0/28"', '"192.168.1.15"', "true"],
    ['"192.168.1.0/28"', '"192.168.1.16"', "false"],
    ['"2001:4860:4860::8888/32"', '"2001:4860:4860:1234::8888/40"', "true"],
    ['"2001:4860::/96"', '"2001:4860::/32"', "false"],
    ['"2001:4860::/32"', '"fd1e:5bfe:8af3:9ddc::/64"', "false"],
    ['"::/0"', '"::1"', "true"],
    ['"::ffff:0:0/96"', '"1.2.3.4"', "true"],
    ['"0.0.0.0/0"', '"::ffff:1.2.3.4"', "true"],
    ['"192.168.1.0/28"', '"not-a-cidr"', undefined],
    ['"10.0.0.0"', '"10.0.0.1"', undefined],
    ['"010.0.0.0/8"', '"10.0.0.1"', undefined],
    ['"1::2::3/64"', '"1::"', undefined],
  ])("cidr_contains(%s, %s) = %s", (a, b, want) => {
    expect(call("tg_net_cidr_contains", a, b)).toBe(want);
  });

  it("raises a builtin error for malformed input under strict errors", () => {
    expect(strictError("tg_net_cidr_contains", '"192.168.1.0/28"', '"not-a-cidr"')).toContain("eval_builtin_error: net.cidr_contains:");
  });
});

describe("walk and print helpers", () => {
  it("walks pre-order with sorted keys", () => {
    expect(call("tg_walk", '{"b":[true],"a":1}')).toBe(
      '[[[],{"a":1,"b":[true]}],[["a"],1],[["b"],[true]],[["b",0],true]]',
    );
    expect(call("tg_walk", "1")).toBe("[[[],1]]");
  });

  it("formats print lines as OPA does", () => {
    const line = (args: number): string => {
      const addr = rt.call("tg_print_format", args);
      const bytes = new Uint8Array(rt.memory.buffer);
      let end = addr;
      while (bytes[end] !== 0) end++;
      return new TextDecoder().decode(bytes.subarray(addr, end));
    };
    const args = rt.call("opa_array");
    rt.call("opa_array_append", args, operand('set:["hi"]'));
    rt.call("opa_array_append", args, operand("set:[]"));
    rt.call("opa_array_append", args, operand('set:[{"a":[1,"x"]},2]'));
    expect(line(args)).toBe('hi <undefined> 2, {"a": [1, "x"]}');
  });
});

describe("invalid UTF-8", () => {
  it("counts each invalid byte as one rune, as Go does", () => {
    const bytes = rt.call("opa_base64_decode", rt.parse('"2E84ZuPUd7zfvCZSNEchVpDEIj6PL7JfLpIqyxVG16k="'));
    expect(rt.dump(rt.call("opa_agg_count", bytes))).toBe("30");
    // "\xe2\x82" truncated, "\xed\xa0\x80" surrogate, "\xc0\xaf" overlong: every byte is its own rune
    const s = rt.call("opa_base64_decode", rt.parse(`"${Buffer.from([0xe2, 0x82, 0x61, 0xed, 0xa0, 0x80, 0xc0, 0xaf]).toString("base64")}"`));
    expect(rt.dump(rt.call("opa_agg_count", s))).toBe("8");
  });
});
