/** json.patch, json.filter, json.remove and uuid.parse: OPA's results, through the SDK. */
import { describe, expect, it } from "vitest";
import { evaluate } from "../wasm-emit/sdk-harness.js";

const value = async (expr: string, strict = false): Promise<unknown> => {
  const rs = (await evaluate({ modules: ["package t\nimport rego.v1"], query: `x := ${expr}`, strict })) as { x: unknown }[];
  return rs.length === 0 ? undefined : rs[0]!.x;
};

const patch = (doc: string, ops: string): Promise<unknown> => value(`json.patch(${doc}, ${ops})`);

describe("json.patch", () => {
  it.each([
    ["add to an object", '{"a": {"foo": 1}}', '[{"op": "add", "path": "/a/bar", "value": 2}]', { a: { foo: 1, bar: 2 } }],
    ["remove", '{"a": {"foo": 1, "bar": 2}}', '[{"op": "remove", "path": "/a/bar"}]', { a: { foo: 1 } }],
    ["replace", '{"a": {"foo": 1}}', '[{"op": "replace", "path": "/a/foo", "value": 42}]', { a: { foo: 42 } }],
    ["move", '{"a": {"foo": 1}, "b": {}}', '[{"op": "move", "from": "/a/foo", "path": "/b/foo"}]', { a: {}, b: { foo: 1 } }],
    ["copy", '{"a": {"foo": 1}, "b": {}}', '[{"op": "copy", "from": "/a/foo", "path": "/b/foo"}]', { a: { foo: 1 }, b: { foo: 1 } }],
    ["test that holds", '{"a": {"foo": [1]}}', '[{"op": "test", "path": "/a/foo", "value": [1]}]', { a: { foo: [1] } }],
    ["insert into an array shifts the rest", '{"arr": [1, 2, 3]}', '[{"op": "add", "path": "/arr/1", "value": "x"}]', { arr: [1, "x", 2, 3] }],
    ["- appends", '{"arr": [1]}', '[{"op": "add", "path": "/arr/-", "value": 4}]', { arr: [1, 4] }],
    ["array-form path with a number index", "[1, 2, 3]", '[{"op": "remove", "path": [1]}]', [1, 3]],
    ["~1 and ~0 escapes", '{"a/b": {"c~": 1}}', '[{"op": "add", "path": "/a~1b/c~0d", "value": 2}]', { "a/b": { "c~": 1, "c~d": 2 } }],
    ["the root replaced", '{"a": 1}', '[{"op": "remove", "path": ""}, {"op": "add", "path": "", "value": {"b": 2}}]', { b: 2 }],
    ["a scalar target", "1", '[{"op": "replace", "path": "", "value": 2}]', 2],
    ["operations apply in order", '{"a": [1]}', '[{"op": "add", "path": "/a/0", "value": 0}, {"op": "remove", "path": "/a/1"}]', { a: [0] }],
  ])("%s", async (_note, doc, ops, want) => {
    expect(await patch(doc, ops)).toEqual(want);
  });

  it.each([
    ["a test that fails", '{"a": 1}', '[{"op": "test", "path": "/a", "value": 2}]'],
    ["a missing parent", "{}", '[{"op": "add", "path": "/a/b", "value": 1}]'],
    ["removing a missing key", "{}", '[{"op": "remove", "path": "/a"}]'],
    ["an index past the end", "[1]", '[{"op": "add", "path": "/2", "value": 1}]'],
    ["- for remove", "[1, 2]", '[{"op": "remove", "path": "/-"}]'],
    ["a leading zero", "[1, 2]", '[{"op": "remove", "path": "/01"}]'],
    ["a negative index", "[1, 2]", '[{"op": "remove", "path": [-1]}]'],
    ["no op", "{}", '[{"path": "/a", "value": 1}]'],
    ["an unknown op", "{}", '[{"op": "merge", "path": "/a", "value": 1}]'],
    ["no value for add", "{}", '[{"op": "add", "path": "/a"}]'],
    ["no from for move", "{}", '[{"op": "move", "path": "/a"}]'],
    ["a path that is not a string or array", "{}", '[{"op": "add", "path": {}, "value": 1}]'],
    ["an operation that is not an object", "{}", "[1]"],
    ["moving a node into its own child", '{"a": {"b": 1}}', '[{"op": "move", "from": "/a", "path": "/a/c"}]'],
    ["removing the root", '{"a": 1}', '[{"op": "remove", "path": ""}]'],
  ])("undefined, never an error, for %s", async (_note, doc, ops) => {
    expect(await value(`json.patch(${doc}, ${ops})`, true)).toBeUndefined();
  });

  it("a failed patch leaves its input as it was", async () => {
    const rs = (await evaluate({
      modules: ['package t\nimport rego.v1\no := {"a": [1, 2, 3]}\np := json.patch(o, [{"op": "remove", "path": "/a/0"}, {"op": "remove", "path": "/x"}])'],
      query: "x := data.t.o",
    })) as { x: unknown }[];
    expect(rs[0]!.x).toEqual({ a: [1, 2, 3] });
  });

  it("operand 2 must be an array (strict: OPA's type error)", async () => {
    await expect(value('json.patch({}, object.get({}, "k", {}))', true)).rejects.toThrow("eval_type_error: json.patch: operand 2 must be array but got object");
  });
});

describe("json.filter", () => {
  it.each([
    ["keeps the named paths", '{"a": {"b": 1, "c": 2}, "d": 3}', '["a/b", "d"]', { a: { b: 1 }, d: 3 }],
    ["a shorter path covers a longer one", '{"a": {"b": 1, "c": 2}}', '["a/b", "a"]', { a: { b: 1, c: 2 } }],
    ["array elements by index string", '{"a": [{"x": 1, "y": 2}, {"x": 3}]}', '["a/0/x"]', { a: [{ x: 1 }] }],
    ["array-form paths", '{"a": {"b/c": 1, "d": 2}}', '[["a", "b/c"]]', { a: { "b/c": 1 } }],
    ["a set of paths", '{"a": 1, "b": 2}', '{"b"}', { b: 2 }],
    ["leading slashes are trimmed", '{"a": {"b": 1, "c": 2}}', '["/a/b"]', { a: { b: 1 } }],
    ["the empty path selects nothing", '{"a": 1}', '[""]', {}],
    ["a missing path", '{"a": 1}', '["b/c"]', {}],
  ])("%s", async (_note, obj, paths, want) => {
    expect(await value(`json.filter(${obj}, ${paths})`)).toEqual(want);
  });

  it("names a bad path operand as OPA does", async () => {
    await expect(value('json.filter({"a": 1}, [1])', true)).rejects.toThrow(
      "eval_type_error: json.filter: operand 2 must be one of {set, array} containing string paths or array of path segments but got number",
    );
  });
});

describe("json.remove", () => {
  it.each([
    ["drops the named paths", '{"a": {"b": 1, "c": 2}, "d": 3}', '["a/b", "d"]', { a: { c: 2 } }],
    ["array elements close up", '{"a": [1, 2, 3]}', '["a/1"]', { a: [1, 3] }],
    ["a path through a scalar changes nothing", '{"a": 1}', '["a/b"]', { a: 1 }],
    ["array-form paths", '{"a": {"b": 1, "c": 2}}', '[["a", "b"]]', { a: { c: 2 } }],
    ["the empty path removes nothing", '{"a": 1}', '[""]', { a: 1 }],
  ])("%s", async (_note, obj, paths, want) => {
    expect(await value(`json.remove(${obj}, ${paths})`)).toEqual(want);
  });

  it("operand 1 must be an object", async () => {
    await expect(value('json.remove(object.get({}, "k", "s"), ["a"])', true)).rejects.toThrow("eval_type_error: json.remove: operand 1 must be object but got string");
  });
});

describe("uuid.parse", () => {
  it("decodes a version 1 UUID: time in ns, node id, MAC bits, clock sequence", async () => {
    expect(await value('uuid.parse("b01d0062-a116-11ee-822b-7ab0b9e5e0c0")')).toEqual({
      version: 1,
      variant: "RFC4122",
      time: 1703282931110717000,
      nodeid: "7a-b0-b9-e5-e0-c0",
      macvariables: "local:unicast",
      clocksequence: 555,
    });
    // every digit of the time survives (it is beyond 2^53)
    expect(await value('uuid.parse("b01d0062-a116-11ee-822b-7ab0b9e5e0c0").time % 1000000')).toBe(717000);
  });

  it("decodes a version 2 UUID's id and domain", async () => {
    expect(await value('uuid.parse("000003e8-a129-21ee-ae00-325096b39f47")')).toMatchObject({ version: 2, id: 1000, domain: "Person", clocksequence: 11776 });
  });

  it("gives version and variant only for other versions, and accepts OPA's other spellings", async () => {
    expect(await value('uuid.parse("a6342df8-7801-469c-b3f3-c5317a0ebdaa")')).toEqual({ version: 4, variant: "RFC4122" });
    expect(await value('uuid.parse("urn:uuid:A6342DF8-7801-469C-B3F3-C5317A0EBDAA")')).toEqual({ version: 4, variant: "RFC4122" });
    expect(await value('uuid.parse("{a6342df8-7801-469c-b3f3-c5317a0ebdaa}")')).toEqual({ version: 4, variant: "RFC4122" });
    expect(await value('uuid.parse("a6342df87801469cd3f3c5317a0ebdaa")')).toEqual({ version: 4, variant: "Microsoft" });
  });

  it("an invalid UUID is undefined, not an error", async () => {
    expect(await value('uuid.parse("not-valid")', true)).toBeUndefined();
    expect(await value('uuid.parse("a6342df8x7801-469c-b3f3-c5317a0ebdaa")', true)).toBeUndefined();
  });
});
