/**
 * The shipped policy, linked at binary level: a valid module the unmodified
 * opa-wasm SDK loads and decides with, the same bytes on every build, and the
 * same decisions when binaryen optimises the generated functions.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy, loadOptimizer } from "../../codegen/compiler/index.js";
import { validationError } from "../../codegen/wasm/link/index.js";

const root = join(import.meta.dirname, "..", "..");
const ENTRY = "toolgate/authz/decision";
const modules = [{ file: "policies/authz.rego", source: readFileSync(join(root, "policies", "authz.rego"), "utf8") }];
const read = {
  tool: "get_account", effect: "read", args: {}, fingerprint: "fp", args_hash: "ah", operation_id: "op-1",
  principal: { tenant: "t1", user: "alice", roles: ["agent"] }, approval: null, now_ms: 1000, policy_version: "v1",
  policy_code_version: "c1", policy_data_version: "d1",
};
const write = { ...read, tool: "reserve_funds", effect: "reversible_write", args: { amount: 5 } };
const destructive = { ...write, effect: "destructive" };

function build(optimize = false): Uint8Array {
  const r = compilePolicy({ modules, entrypoints: [ENTRY], optimize });
  expect(r.errors).toEqual([]);
  return r.wasm!;
}

async function decisions(wasm: Uint8Array): Promise<unknown[]> {
  const policy = await loadPolicy(wasm);
  policy.setData(JSON.parse(readFileSync(join(root, "policies", "data.json"), "utf8")) as object);
  return [read, write, destructive].map((input) => policy.evaluate(input, ENTRY));
}

describe("the linked module", () => {
  it("validates and loads in the opa-wasm SDK, which decides with it", async () => {
    const wasm = build();
    expect(validationError(wasm)).toBeNull();
    const [r, w, d] = (await decisions(wasm)) as { result: { allow: boolean; reason: string } }[][];
    expect(r![0]!.result).toMatchObject({ allow: true, reason: "read_allowed" });
    expect(w![0]!.result).toMatchObject({ allow: false, reason: "approval_required" });
    expect(d![0]!.result).toMatchObject({ allow: false });
  });

  it("is deterministic: two builds give the same bytes, and generated/policy.wasm is one of them", () => {
    const a = build();
    const b = build();
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(Buffer.from(readFileSync(join(root, "generated", "policy.wasm"))).equals(Buffer.from(a))).toBe(true);
  });

  it("optimize: true runs binaryen over the generated functions only: valid, same decisions, runtime untouched in size", async () => {
    await loadOptimizer();
    const plain = build();
    const optimized = build(true);
    expect(validationError(optimized)).toBeNull();
    expect(await decisions(optimized)).toEqual(await decisions(plain));
    expect(Buffer.from(build(true)).equals(Buffer.from(optimized))).toBe(true);
    // The generated code is a few kB next to a ~79 kB runtime; unoptimised it must stay close.
    expect(plain.byteLength).toBeLessThan(optimized.byteLength * 1.05);
  }, 60_000);
});
