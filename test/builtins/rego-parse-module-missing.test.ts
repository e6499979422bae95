/**
 * rego.parse_module without the build tools: the runtime entry never loads toolgate's Rego
 * parser, so a policy calling it aborts with a clear error. A file of its own, run in a fresh
 * module graph: nothing in this process has registered the parser.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { createHostBuiltins } from "../../src/policy/host-builtins/index.js";

async function evalRule(body: string): Promise<unknown> {
  const source = `package t\n\n${body}\n`;
  const out = compilePolicy({ modules: [{ file: "t.rego", source }], entrypoints: ["t/r"], optimize: false, strictBuiltinErrors: false });
  expect(out.errors).toEqual([]);
  const policy = await loadPolicy(out.wasm!, undefined, createHostBuiltins().builtins);
  return policy.evaluate({}, "t/r");
}

describe("rego.parse_module without the build tools", () => {
  it("aborts the evaluation with an error naming what is missing, in non-strict mode too", async () => {
    await expect(evalRule('r := rego.parse_module("x.rego", "package x")')).rejects.toThrow(/rego\.parse_module needs toolgate's Rego parser, which the runtime entry does not load/);
  });
});

