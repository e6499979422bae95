import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadRuntime } from "./harness.js";

const rt = loadRuntime();
const roundTrip = (json: string): string | undefined => rt.dump(rt.parse(json));

describe("JSON parse and dump", () => {
  it.each([
    ["null", "null"],
    ["true", "true"],
    [" [1, 2 ,3] ", "[1,2,3]"],
    ['{"b":1,"a":2}', '{"a":2,"b":1}'],
    ['{"a":1,"a":2}', '{"a":2}'], // duplicate keys: last wins, as Go's decoder
    ['"\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\\\/"', '"é😀\\n\\t\\"\\\\/"'],
    ['"<&>"', '"\\u003c\\u0026\\u003e"'], // Go's HTML-safe escaping
    ['"\\u0001"', '"\\u0001"'],
    ["0.1", "0.1"],
    ["1.0", "1"],
    ["1e2", "100"],
    ["-0.000001", "-0.000001"],
    ["1e-7", "1e-7"],
    ["1.5e300", "1.5e+300"],
    ["123456789012345678901234567890", "123456789012345678901234567890"],
    ["-9223372036854775808", "-9223372036854775808"],
    ["9223372036854775808", "9223372036854775808"],
    ["[]", "[]"],
    ["{}", "{}"],
  ])("%s -> %s", (input, want) => {
    expect(roundTrip(input)).toBe(want);
  });

  it.each([
    "", "nul", "tru", "[1,]", "{\"a\":1,}", "[1 2]", "01", "1.", ".5", "-", "+1", "1e", "\"abc", "\"a\nb\"",
    "\"\\x\"", "\"\\u12\"", "{a:1}", "[1]]", "NaN", "Infinity", "'a'", "{\"a\" 1}",
  ])("rejects invalid JSON %j", (input) => {
    expect(rt.parse(input)).toBe(0);
  });

  it("rejects nesting deeper than the limit instead of overflowing the stack", () => {
    expect(rt.parse("[".repeat(100_000) + "]".repeat(100_000))).toBe(0);
    expect(roundTrip("[".repeat(200) + "]".repeat(200))).toBe("[".repeat(200) + "]".repeat(200));
  });

  it("dumps sets as arrays in JSON and with Rego syntax in opa_value_dump", () => {
    const set = rt.call("opa_set");
    for (const x of ["3", "\"a\"", "1", "[1]", "1"]) rt.call("opa_set_add", set, rt.parse(x));
    expect(rt.dump(set)).toBe('[1,3,"a",[1]]');
    expect(rt.dumpRego(set)).toBe('{1, 3, "a", [1]}');
    expect(rt.dumpRego(rt.call("opa_set"))).toBe("set()");
    expect(rt.dumpRego(rt.parse('{"a":[1,{"b":null}]}'))).toBe('{"a": [1, {"b": null}]}');
  });

  it("prints non-string object keys as JSON text inside a string", () => {
    const obj = rt.call("opa_object");
    rt.call("opa_object_insert", obj, rt.parse("1"), rt.parse("true"));
    rt.call("opa_object_insert", obj, rt.parse('["x"]'), rt.parse("2"));
    expect(rt.dump(obj)).toBe('{"1":true,"[\\"x\\"]":2}');
  });
});

describe("ordering and equality", () => {
  // OPA: null < false < true < numbers < strings < arrays < objects < sets
  const ascending = [
    "null", "false", "true", "-1e300", "-9223372036854775809", "-1", "0", "0.5", "1", "9223372036854775807",
    "9223372036854775808", "1e300", '""', '"A"', '"a"', '"ab"', '"é"', "[]", "[1]", "[1,2]", "[2]", "{}",
    '{"a":1}', '{"a":2}', '{"a":2,"b":0}', '{"b":0}',
  ];

  it("orders values as OPA does", () => {
    const vals = ascending.map((j) => rt.parse(j));
    for (let i = 0; i < vals.length; i++) {
      for (let j = 0; j < vals.length; j++) {
        const want = Math.sign(i - j);
        expect([ascending[i], ascending[j], rt.call("opa_value_compare", vals[i]!, vals[j]!)])
          .toEqual([ascending[i], ascending[j], want]);
      }
    }
  });

  it("orders sets after objects and compares them as sorted element lists", () => {
    const a = rt.call("opa_set");
    const b = rt.call("opa_set");
    rt.call("opa_set_add", a, rt.parse("2"));
    rt.call("opa_set_add", a, rt.parse("1"));
    rt.call("opa_set_add", b, rt.parse("1"));
    rt.call("opa_set_add", b, rt.parse("3"));
    expect(rt.call("opa_value_compare", rt.parse('{"z":1}'), a)).toBe(-1);
    expect(rt.call("opa_value_compare", a, b)).toBe(-1); // [1,2] < [1,3]
  });

  it.each([
    ["1", "1.0", 1],
    ["100", "1e2", 1],
    ["0.1", "0.10", 1],
    ["1", "2", 0],
    ['{"a":[1,2]}', '{"a":[1,2.0]}', 1],
    ["123456789012345678901234567890", "123456789012345678901234567890", 1],
    ["123456789012345678901234567890", "123456789012345678901234567891", 0],
    ['"a"', '"a"', 1],
    ["[1]", "{}", 0],
  ])("equal(%s, %s) = %i", (a, b, want) => {
    expect(rt.call("tg_value_equal", rt.parse(a), rt.parse(b))).toBe(want);
  });
});

describe("collections", () => {
  it("gets by key, index and membership", () => {
    const obj = rt.parse('{"b":{"c":[10,20]},"a":1}');
    const get = (v: number, k: string): string | undefined => rt.dump(rt.call("opa_value_get", v, rt.parse(k)));
    expect(get(obj, '"a"')).toBe("1");
    expect(get(obj, '"zz"')).toBeUndefined();
    const arr = rt.call("opa_value_get", rt.call("opa_value_get", obj, rt.parse('"b"')), rt.parse('"c"'));
    expect(get(arr, "1")).toBe("20");
    expect(get(arr, "1.0")).toBe("20");
    expect(get(arr, "2")).toBeUndefined();
    expect(get(arr, "-1")).toBeUndefined();
    expect(get(arr, '"0"')).toBeUndefined();
    expect(rt.call("opa_value_length", obj)).toBe(2);
    expect(rt.call("opa_value_length", rt.parse('"héllo"'))).toBe(6); // bytes
  });

  it("iterates objects and sets in sorted key order, arrays by index", () => {
    const keys = (v: number): string[] => {
      const out: string[] = [];
      for (let k = rt.call("opa_value_iter", v, 0); k !== 0; k = rt.call("opa_value_iter", v, k)) out.push(rt.dump(k)!);
      return out;
    };
    expect(keys(rt.parse('{"c":1,"a":2,"b":3}'))).toEqual(['"a"', '"b"', '"c"']);
    expect(keys(rt.parse('["x","y"]'))).toEqual(["0", "1"]);
    const obj = rt.parse('{"c":1,"a":2}');
    expect(rt.dump(rt.call("tg_key_at", obj, 1))).toBe('"c"');
    expect(rt.dump(rt.call("tg_value_at", obj, 1))).toBe("1");
  });

  it("merges virtual documents into base documents, 0 on conflict", () => {
    const merge = (a: string, b: string): string | undefined =>
      rt.dump(rt.call("opa_value_merge", rt.parse(a), rt.parse(b)));
    expect(merge('{"a":{"x":1},"b":2}', '{"a":{"y":2},"c":3}')).toBe('{"a":{"x":1,"y":2},"b":2,"c":3}');
    expect(merge('{"a":1}', '{"a":2}')).toBeUndefined();
    expect(merge('{"a":1}', '{"a":1}')).toBe('{"a":1}');
  });

  it("upserts and removes along a path without touching the original", () => {
    const base = rt.parse('{"a":{"b":1,"c":2},"d":3}');
    const up = rt.call("tg_value_upsert", base, rt.parse('["a","b"]'), rt.parse('"x"'));
    expect(rt.dump(up)).toBe('{"a":{"b":"x","c":2},"d":3}');
    expect(rt.dump(rt.call("tg_value_upsert", base, rt.parse('["n","m"]'), rt.parse("true")))).toBe(
      '{"a":{"b":1,"c":2},"d":3,"n":{"m":true}}',
    );
    expect(rt.dump(rt.call("tg_value_upsert", 0, rt.parse('["k"]'), rt.parse("1")))).toBe('{"k":1}');
    expect(rt.dump(rt.call("tg_value_remove_path", base, rt.parse('["a","c"]')))).toBe('{"a":{"b":1},"d":3}');
    expect(rt.dump(base)).toBe('{"a":{"b":1,"c":2},"d":3}');
  });

  it("insert_once reports a conflicting value", () => {
    const obj = rt.call("opa_object");
    expect(rt.call("tg_object_insert_once", obj, rt.parse('"k"'), rt.parse("1"))).toBe(1);
    expect(rt.call("tg_object_insert_once", obj, rt.parse('"k"'), rt.parse("1.0"))).toBe(1);
    expect(rt.call("tg_object_insert_once", obj, rt.parse('"k"'), rt.parse("2"))).toBe(0);
  });
});

describe("numbers", () => {
  it("builds numbers from literal text keeping big integers exact", () => {
    const enc = new TextEncoder();
    const num = (text: string): string | undefined => {
      const bytes = enc.encode(text);
      const addr = rt.call("opa_malloc", bytes.length);
      new Uint8Array(rt.memory.buffer).set(bytes, addr);
      return rt.dump(rt.call("opa_number_ref", addr, bytes.length));
    };
    expect(num("18446744073709551617")).toBe("18446744073709551617");
    expect(num("3.25")).toBe("3.25");
    expect(num("abc")).toBeUndefined();
    expect(rt.dump(rt.call("opa_number_int", -42n))).toBe("-42");
    expect(rt.dump(rt.call("opa_number_float", 2.5))).toBe("2.5");
  });

  it("prints floats like Go's encoding/json (shortest round-trip form)", () => {
    for (const f of [0.1, 0.30000000000000004, 1 / 3, 1e21, 1.5e-7, 123456.789, -2.5e-300, 5e-324]) {
      expect([f, JSON.parse(rt.dump(rt.call("opa_number_float", f))!)]).toEqual([f, f]);
    }
    expect(rt.dump(rt.call("opa_number_float", 1e21))).toBe("1e+21");
    expect(rt.dump(rt.call("opa_number_float", 1e20))).toBe("100000000000000000000");
  });
});

describe("float conversions are exact", () => {
  // Every double must read back bit-for-bit and print as JavaScript (and Go's JSON encoder) print it.
  it("round-trips random doubles with the shortest text", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (f) => {
        const text = String(f);
        expect(rt.dump(rt.parse(text))).toBe(text);
      }),
      { seed: 20261129, numRuns: 5000 },
    );
  });

  it.each([
    ["5e-324", "5e-324"],
    ["2.2250738585072014e-308", "2.2250738585072014e-308"],
    ["2.225073858507201e-308", "2.225073858507201e-308"], // largest subnormal
    ["1.7976931348623157e308", "1.7976931348623157e+308"],
    ["0.1000000000000000055511151231257827021181583404541015625", "0.1"],
    ["9007199254740993.0", "9007199254740992"], // halfway: ties to even
    ["1e-400", "0"],
    ["123.456e-2", "1.23456"],
    ["0.000001", "0.000001"],
    ["4.35", "4.35"],
  ])("%s -> %s", (input, want) => {
    expect(rt.dump(rt.parse(input))).toBe(want);
  });
});
