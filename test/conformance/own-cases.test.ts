/**
 * toolgate's own conformance-style cases (`cases/<topic>/*.yaml`, OPA's case format),
 * each a behaviour OPA shows that the open set does not cover. Every case is judged
 * as the runner judges OPA's cases, on both engines: the opa-wasm SDK (runCase) and
 * the fast engine (FastPolicy over the same module).
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FastPolicy } from "../../src/policy/fast-engine.js";
import { readBindings } from "./bindings.js";
import { loadCases, type ConformanceCase } from "./cases.js";
import { compileWithQuery, errorText } from "./engine.js";
import { inputTermToJson } from "./input-term.js";
import { judge, queryEntrypoint, runCase, type Got } from "./run-case.js";

const dir = fileURLToPath(new URL("./cases", import.meta.url));
const cases = loadCases(dir);

async function onFastEngine(c: ConformanceCase): Promise<Got> {
  const modules = c.modules.map((source, i) => ({ file: `test-${i}.rego`, source }));
  const compiled = await compileWithQuery(modules, queryEntrypoint, c.query, c.strictError, false);
  if (!compiled.ok) return { kind: "error", message: compiled.message };
  let input: unknown;
  if (c.inputTerm !== undefined) {
    const converted = inputTermToJson(c.inputTerm);
    if (!converted.ok) throw new Error(converted.reason);
    input = JSON.parse(converted.json) as unknown;
  } else input = c.input;
  try {
    const fast = await FastPolicy.load(compiled.wasm);
    fast.setData((c.data ?? {}) as Record<string, unknown>);
    const resultSet = fast.evaluate(input, fast.entrypoints[queryEntrypoint]!);
    const bindings = readBindings(resultSet);
    if (!bindings.ok) return { kind: "error", message: bindings.reason };
    return { kind: "result", bindings: bindings.bindings };
  } catch (err) {
    return { kind: "error", message: errorText(err) };
  }
}

describe("toolgate's own conformance cases", () => {
  it("are found", () => {
    expect(cases.length).toBeGreaterThan(0);
  });
  describe.each(cases.map((c) => [c.note, c] as const))("%s", (_note, c) => {
    it("holds on the opa-wasm SDK", async () => {
      const out = await runCase(c);
      expect(out.reason ?? null, `${out.want ?? ""} / ${out.got ?? ""}`).toBeNull();
    });
    it("holds on the fast engine", async () => {
      expect(judge(c, await onFastEngine(c))).toBeNull();
    });
  });
});
