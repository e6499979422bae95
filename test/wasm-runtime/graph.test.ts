/** graph.reachable and graph.reachable_paths (native): OPA's traversal rules, sets in and out. */
import { describe, expect, it } from "vitest";
import { evaluate } from "../wasm-emit/sdk-harness.js";

const value = async (expr: string, strict = false): Promise<unknown> => {
  const rs = (await evaluate({ modules: ["package t\nimport rego.v1"], query: `x := ${expr}`, strict })) as { x: unknown }[];
  return rs.length === 0 ? undefined : rs[0]!.x;
};

describe("graph.reachable", () => {
  it.each([
    ["follows edges through a cycle", '{"a": ["b"], "b": ["c"], "c": ["a"], "d": ["e"]}', '["a"]', '{"a", "b", "c"}'],
    ["a neighbour that is not a vertex of the graph is not reached", '{"a": ["x"]}', '["a"]', '{"a"}'],
    ["neighbours and initial vertices may be sets", '{"a": {"b"}, "b": set()}', '{"a"}', '{"a", "b"}'],
    ["an initial vertex outside the graph reaches nothing", '{"a": ["b"]}', '["z"]', "set()"],
    ["vertices of any type", '{1: [2], 2: [[3]], [3]: []}', "[1]", "{1, 2, [3]}"],
    ["edges that are neither array nor set lead nowhere", '{"a": "b", "b": []}', '["a"]', '{"a"}'],
  ])("%s", async (_note, graph, initial, want) => {
    expect(await value(`graph.reachable(${graph}, ${initial}) == ${want}`)).toBe(true);
  });

  it("names a wrong operand as OPA does (strict)", async () => {
    await expect(value('graph.reachable({"a": []}, object.get({}, "k", "a"))', true)).rejects.toThrow(
      "eval_type_error: graph.reachable: operand 2 must be {array, set} but got string",
    );
  });
});

describe("graph.reachable_paths", () => {
  it.each([
    ["one path per leaf", '{"a": ["b", "c"], "b": ["d"], "c": [], "d": []}', '["a"]', '{["a", "b", "d"], ["a", "c"]}'],
    ["a cycle ends the path before repeating a vertex", '{"a": ["b"], "b": ["a"]}', '["a"]', '{["a", "b"]}'],
    ["a neighbour outside the graph ends the path without it", '{"a": ["x"]}', '["a"]', '{["a"]}'],
    ["an initial vertex without edges is a path of its own", '{"a": []}', '{"a"}', '{["a"]}'],
    ["an initial vertex outside the graph gives nothing", '{"a": []}', '["z"]', "set()"],
    ["paths from every initial vertex", '{"a": ["c"], "b": ["c"], "c": []}', '["a", "b"]', '{["a", "c"], ["b", "c"]}'],
  ])("%s", async (_note, graph, initial, want) => {
    expect(await value(`graph.reachable_paths(${graph}, ${initial}) == ${want}`)).toBe(true);
  });
});
