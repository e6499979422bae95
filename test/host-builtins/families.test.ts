/** Table tests of each host builtin family beyond the conformance cases (Go/OPA semantics). */
import { describe, expect, it } from "vitest";
import { call, type Row } from "./helpers.js";

const T = (note: string, fn: string, args: unknown[], want: unknown): Row => ({ note, fn, args, want });
const E = (note: string, fn: string, args: unknown[], error: string): Row => ({ note, fn, args, want: { error } });

const rows: Row[] = [
  // regex (RE2 syntax, Go iteration)
  T("match is unanchored", "regex.match", ["b+", "abbbc"], true),
  T("(?i) prefix flag", "regex.match", ["(?i)^abc$", "ABC"], true),
  T("\\A and \\z", "regex.match", ["\\Afoo\\z", "foo"], true),
  T("\\z does not match before a final newline", "regex.match", ["foo\\z", "foo\n"], false),
  T("POSIX class", "regex.match", ["^[[:alpha:]]+$", "abcXYZ"], true),
  T("(?P<name>) group", "regex.match", ["(?P<word>\\w+)", "hi"], true),
  T("\\s is ASCII only in Go", "regex.match", ["^\\s$", "\u00a0"], false),
  T("escaped punctuation Go allows", "regex.match", ["^a\\-b\\:c$", "a-b:c"], true),
  T("lone { is a literal", "regex.match", ["a{", "a{"], true),
  E("invalid pattern (strict: builtin error)", "regex.match", ["[a", "a"], "eval_builtin_error: error parsing regexp"),
  E("non-string operand", "regex.match", [1, "a"], "eval_type_error: operand 1 must be string but got number"),
  T("is_valid: lookahead is not RE2", "regex.is_valid", ["a(?=b)"], false),
  T("is_valid: backreference is not RE2", "regex.is_valid", ["(a)\\1"], false),
  T("is_valid: repeat over 1000", "regex.is_valid", ["a{1001}"], false),
  T("is_valid: non-string is false", "regex.is_valid", [7], false),
  T("is_valid: valid", "regex.is_valid", ["^[a-z]+$"], true),
  T("find_n all", "regex.find_n", ["a.", "banana", -1], ["an", "an"]),
  T("find_n limited", "regex.find_n", ["[0-9]", "a1b2c3", 2], ["1", "2"]),
  T("find_n empty matches (Go skips the one after a match)", "regex.find_n", ["a*", "baaac", -1], ["", "aaa", ""]),
  E("find_n float n", "regex.find_n", ["a", "a", 1.5], "eval_type_error: operand 3 must be integer"),
  T("split", "regex.split", ["a", "banana"], ["b", "n", "n", ""]),
  T("split on empty matches", "regex.split", ["x*", "axbxc"], ["a", "b", "c"]),
  T("split of empty string", "regex.split", [",", ""], [""]),
  T("split keeps no capture groups (unlike JS)", "regex.split", ["(,)", "a,b"], ["a", "b"]),
  T("replace with $1 expansion", "regex.replace", ["foo bar", "(\\w+) (\\w+)", "$2-$1"], "bar-foo"),
  T("replace with ${name}", "regex.replace", ["ab", "(?P<x>a)", "[${x}]"], "[a]b"),
  T("replace: $1x is group '1x' (empty)", "regex.replace", ["ab", "(a)", "$1x"], "b"),
  T("submatches", "regex.find_all_string_submatch_n", ["a(x*)b", "-ab-axxb-", -1], [["ab", ""], ["axxb", "xx"]]),
  T("globs_match: both match 'abab'", "regex.globs_match", ["a.a.", ".b.b"], true),
  T("globs_match: empty string does not count", "regex.globs_match", ["a*", "b*"], false),
  T("globs_match: sets intersect", "regex.globs_match", ["[a-c]x", "[c-e]x"], true),
  T("globs_match: ? is a literal", "regex.globs_match", ["a?", "ab"], false),
  E("globs_match: unclosed set", "regex.globs_match", ["[ab", "a"], "eval_builtin_error: the input provided is invalid"),
  // glob (gobwas)
  T("* stops at the default delimiter", "glob.match", ["*.github.com", [], "api.cdn.github.com"], false),
  T("* within one segment", "glob.match", ["*.github.com", [], "api.github.com"], true),
  T("** crosses delimiters", "glob.match", ["api.**.com", [], "api.cdn.github.com"], true),
  T("custom delimiter", "glob.match", ["*:github:com", [":"], "api:github:com"], true),
  T("null delimiters: * matches dots", "glob.match", ["*.com", null, "a.b.com"], true),
  T("? one character", "glob.match", ["?at", [], "cat"], true),
  T("? needs a character", "glob.match", ["?at", [], "at"], false),
  T("class", "glob.match", ["[abc]at", [], "bat"], true),
  T("negated class", "glob.match", ["[!abc]at", [], "bat"], false),
  T("range", "glob.match", ["[a-c]at", [], "cat"], true),
  T("negated range", "glob.match", ["[!a-c]at", [], "dat"], true),
  T("alternatives", "glob.match", ["{cat,bat,[fr]at}", [], "rat"], true),
  T("alternatives miss", "glob.match", ["{cat,bat}", [], "rat"], false),
  T("escape", "glob.match", ["\\*x", [], "*x"], true),
  T("regex metacharacters are literal", "glob.match", ["a+b(c)", [], "a+b(c)"], true),
  E("unclosed class", "glob.match", ["[abc", [], "a"], "eval_builtin_error"),
  E("delimiters must be array or null", "glob.match", ["a", "x", "a"], "eval_type_error: operand 2 must be one of {array, null} but got string"),
  T("quote_meta", "glob.quote_meta", ["*.github.com"], "\\*.github.com"),
  // time
  T("rfc3339 with fraction", "time.parse_rfc3339_ns", ["2017-06-02T19:00:00.123456789Z"], 1496430000123456789n),
  E("rfc3339 garbage", "time.parse_rfc3339_ns", ["bogus"], 'eval_builtin_error: parsing time "bogus" as "2006-01-02T15:04:05Z07:00": cannot parse "bogus" as "2006"'),
  E("day out of range", "time.parse_rfc3339_ns", ["2021-02-30T00:00:00Z"], "day out of range"),
  E("extra text", "time.parse_ns", ["2006-01-02", "2021-02-03x"], 'extra text: "x"'),
  T("Go layout with month name and 12h clock", "time.parse_ns", ["Jan _2 2006 3:04PM", "Feb  3 2021 1:05PM"], 1612357500000000000n),
  T("UnixDate layout name", "time.parse_ns", ["UnixDate", "Wed Feb  3 13:05:00 UTC 2021"], 1612357500000000000n),
  T("duration", "time.parse_duration_ns", ["1h30m1.5s"], 5401500000000),
  T("negative duration", "time.parse_duration_ns", ["-1.5h"], -5400000000000),
  E("duration without unit", "time.parse_duration_ns", ["10"], "time: missing unit"),
  T("weekday", "time.weekday", [1517832000e9], "Monday"),
  T("weekday in a zone", "time.weekday", [[1517832000e9 - 13 * 3600e9, "America/New_York"]], "Sunday"),
  T("format default RFC3339Nano", "time.format", [1517832000e9 + 2 ** 20], "2018-02-05T12:00:00.001048576Z"),
  T("format trims fraction zeros", "time.format", [1517832000e9 + 2 ** 27], "2018-02-05T12:00:00.134217728Z"),
  T("format in a zone with layout", "time.format", [[1517832000e9, "America/New_York", "RFC1123Z"]], "Mon, 05 Feb 2018 07:00:00 -0500"),
  E("unknown zone", "time.date", [[0, "Mars/Olympus"]], "eval_builtin_error: unknown time zone Mars/Olympus"),
  E("timestamp type", "time.date", ["x"], "eval_type_error: operand 1 must be either number (ns) or [number (ns), string (tz)] but got string"),
  T("add_date normalises Jan 31 + 1 month", "time.add_date", [1612051200e9, 0, 1, 0], 1614729600000000000n),
  E("add_date out of range", "time.add_date", [0, 300, 0, 0], "time outside of valid range"),
  T("diff", "time.diff", [1517832000e9, 1582977600e9], [2, 0, 24, 0, 0, 0]),
  T("diff is symmetric", "time.diff", [1582977600e9, 1517832000e9], [2, 0, 24, 0, 0, 0]),
  T("diff across month end borrows days of the first month", "time.diff", [1612051200e9, 1614556800e9], [0, 1, 1, 0, 0, 0]),
  // net
  T("intersects", "net.cidr_intersects", ["192.168.0.0/16", "192.168.1.0/24"], true),
  T("does not intersect", "net.cidr_intersects", ["10.0.0.0/8", "192.168.1.0/24"], false),
  T("is_valid", "net.cidr_is_valid", ["10.0.0.0/8"], true),
  T("is_valid without prefix", "net.cidr_is_valid", ["10.0.0.0"], false),
  T("is_valid non-string", "net.cidr_is_valid", [3], false),
  T("IPv4-mapped IPv6 address in an IPv4 net", "net.cidr_contains", ["10.0.0.0/8", "::ffff:10.1.2.3"], true),
  T("IPv6 address not in an IPv4 net", "net.cidr_contains", ["10.0.0.0/8", "::1"], false),
  T("host bits in the net are ignored", "net.cidr_contains", ["10.1.2.3/8", "10.200.0.1"], true),
  T("leading zeros are not an IP (Go 1.17+)", "net.cidr_is_valid", ["010.0.0.0/8"], false),
  E("malformed net a", "net.cidr_contains", ["nope", "10.0.0.1"], "eval_builtin_error: invalid CIDR address: nope"),
  // units errors
  E("units spaces", "units.parse", ["1 K"], "units.parse: spaces not allowed"),
  E("units unknown unit", "units.parse", ["1X"], "units.parse: unit X not recognized"),
  E("bytes unknown unit", "units.parse_bytes", ["1xb"], "units.parse_bytes: byte unit xb not recognized"),
  E("bytes no amount", "units.parse_bytes", ["kb"], "units.parse_bytes: no byte amount provided"),
  T("units milli vs mega", "units.parse", ["1m"], 0.001),
  T("units mega", "units.parse", ["1M"], 1000000),
  T("bytes with exponent", "units.parse_bytes", ["1e3kb"], 1000000),
  // sprintf (Go fmt)
  T("%d %s", "sprintf", ["%d-%s", [42, "x"]], "42-x"),
  T("%v of array and object (Rego text)", "sprintf", ["%v %v", [[1, "a"], { b: 1, a: true }]], '[1, "a"] {"a": true, "b": 1}'),
  T("%v of null and bool", "sprintf", ["%v %v", [null, false]], "null false"),
  T("%s of an int is Go's error form", "sprintf", ["%s", [1]], "%!s(int=1)"),
  T("%d of a string", "sprintf", ["%d", ["x"]], "%!d(string=x)"),
  T("%f and precision, ties to even", "sprintf", ["%f %.2f %.0f %.0f %.1f", [1.5, 3.14159, 2.5, 3.5, 0.25]], "1.500000 3.14 2 4 0.2"),
  T("%f rounds the exact binary value (0.05 is above the tie)", "sprintf", ["%.1f", [0.05]], "0.1"),
  T("%d of a big int", "sprintf", ["%d", [1.5e21]], "1500000000000000000000"),
  T("%e", "sprintf", ["%e", [123456.789]], "1.234568e+05"),
  T("%v of a float uses %g", "sprintf", ["%v %v", [1.5, 1234567.5]], "1.5 1.2345675e+06"),
  T("width and flags", "sprintf", ["[%5d|%-5d|%05d|%+d]", [42, 42, 42, 42]], "[   42|42   |00042|+42]"),
  T("%x %X %o %b", "sprintf", ["%x %X %o %b", [255, 255, 8, 5]], "ff FF 10 101"),
  T("%q", "sprintf", ["%q", ['a"b']], '"a\\"b"'),
  T("%%", "sprintf", ["100%%", []], "100%"),
  T("missing operand", "sprintf", ["%d %d", [1]], "1 %!d(MISSING)"),
  T("extra operand", "sprintf", ["%d", [1, "a"]], "1%!(EXTRA string=a)"),
  T("%s of big int (exact below 2^53 only, see README)", "sprintf", ["%s", [2 ** 53]], "%!s(int=9007199254740992)"),
  E("values must be an array", "sprintf", ["%d", 1], "eval_type_error: operand 2 must be array but got number"),
  // strings
  T("any_prefix_match", "strings.any_prefix_match", [["a/b", "c/d"], ["c/"]], true),
  T("any_prefix_match string operands", "strings.any_prefix_match", ["a/b", "x"], false),
  E("any_prefix_match element type", "strings.any_prefix_match", [["a", 1], "a"], "eval_type_error: operand 1 must be array of strings but got array containing number"),
  E("any_prefix_match operand type", "strings.any_prefix_match", ["a", 2], "eval_type_error: operand 2 must be one of {string, set, array} but got number"),
  T("any_suffix_match", "strings.any_suffix_match", ["file.rego", [".json", ".rego"]], true),
];

describe("host builtin families", () => {
  it.each(rows)("$fn: $note", ({ fn, args, want }) => {
    const got = call(fn, ...args);
    if (typeof want === "object" && want !== null && !Array.isArray(want) && "error" in want) {
      expect("error" in got ? got.error : `value ${JSON.stringify((got as { ok: unknown }).ok, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}`).toContain((want as { error: string }).error);
    } else {
      expect(got).toEqual({ ok: want });
    }
  });

  it("time.now_ns is an exact integer close to the wall clock", () => {
    const got = call("time.now_ns");
    expect("ok" in got).toBe(true);
    const v = (got as { ok: unknown }).ok;
    expect(typeof v).toBe("bigint");
    const diffMs = Number((v as bigint) / 1_000_000n) - Date.now();
    expect(Math.abs(diffMs)).toBeLessThan(1000);
  });
});
