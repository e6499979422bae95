/**
 * A builtin the backend lacks, replaced by some `with`: the front end reports each
 * call reached without that `with`, at the call, exactly where the planner would.
 */
import { describe, expect, it } from "vitest";
import { checkPolicy, supportedBuiltins } from "../../codegen/compiler/check.js";
import { compileModules } from "../../codegen/rego/index.js";

const at = (source: string): { front: string[]; planner: string[] } => {
  const modules = [{ file: "t.rego", source }];
  const show = (es: readonly { code: string; message: string; location: { row: number; col: number } }[]): string[] =>
    es.map((e) => `${e.location.row}:${e.location.col} ${e.code}: ${e.message}`);
  return { front: show(compileModules(modules, { supportedBuiltins: supportedBuiltins([], undefined) }).errors), planner: show(checkPolicy({ modules })) };
};
const UNSUPPORTED = "rego_type_error: OPA builtin http.send is not supported yet";

describe("calls of a replaced unsupported builtin", () => {
  it("a call reached without the with is reported at the call, as the planner does", () => {
    const r = at('package t\nget(u) := http.send({"url": u})\np := get("a")\ntest_p if p == 1 with http.send as {"x": 1}\nq := r.body if { r := http.send({}) }');
    expect(r.front).toEqual([`2:11 ${UNSUPPORTED}`, `5:23 ${UNSUPPORTED}`]);
    expect(r.front).toEqual(r.planner);
  });
  it("calls reached only under the with are fine", () => {
    const r = at('package t\nget(u) := http.send({"url": u})\ntest_p if get("a") == 1 with http.send as {"x": 1}');
    expect(r.front).toEqual([]);
    expect(r.planner).toEqual([]);
  });
  it("a replaced document is not evaluated, so its calls are not reached through it", () => {
    const r = at('package t\nget(u) := http.send({"url": u})\np := get("a") if input.x\ntest_q if data.t.p == 1 with data.t.p as 1 with http.send as {}');
    expect(r.front).toEqual([`2:11 ${UNSUPPORTED}`]);
    expect(r.front).toEqual(r.planner);
  });
});

describe("with the entrypoints given, only what they reach counts", () => {
  const src = 'package t\nallow if http.send({}).body.ok\ntest_allow if allow with http.send as {"body": {"ok": true}}';
  const front = (entrypoints?: { paths: string[][]; queries: [] }) =>
    compileModules([{ file: "t.rego", source: src }], { supportedBuiltins: supportedBuiltins([], undefined), ...(entrypoints === undefined ? {} : { entrypoints }) }).errors.map((e) => `${e.location.row}:${e.location.col} ${e.message}`);
  it("an entrypoint that reaches the call only under the with: no error", () => {
    expect(front({ paths: [["data", "t", "test_allow"]], queries: [] })).toEqual([]);
  });
  it("an entrypoint that reaches it without the with, or every rule as a start: the call", () => {
    expect(front({ paths: [["data", "t", "allow"]], queries: [] })).toEqual(["2:10 OPA builtin http.send is not supported yet"]);
    expect(front()).toEqual(["2:10 OPA builtin http.send is not supported yet"]);
  });
});
