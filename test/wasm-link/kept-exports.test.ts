/**
 * Every runtime export a host calls survives dead-code elimination: the linked
 * shipped policy exports each name the unmodified opa-wasm SDK reads from its
 * instance (`exports.<name>` in its source), each name of the ABI's host groups
 * (src/policy/abi.ts) and each runtime export name toolgate's own host code
 * mentions (src/, the conformance runner, benchmarks), and it loads
 * and decides in both the SDK and the fast engine.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { runtimeBytes } from "../../codegen/wasm/link/runtime-bytes.js";
import { runtimeLibrary } from "../../codegen/wasm/link/runtime-library.js";
import { loadFastEngine } from "../../src/policy/fast-engine.js";
import type { PolicyInput } from "../../src/policy/index.js";
import { OPA_ABI_EXPORTS, SDK_EXPORTS, TOOLGATE_HOST_EXPORTS } from "../../src/policy/abi.js";

const root = join(import.meta.dirname, "..", "..");
const ENTRY = "toolgate/authz/decision";
const policy = { file: "policies/authz.rego", source: readFileSync(join(root, "policies", "authz.rego"), "utf8") };
// The builtin table names the runtime functions generated code calls (kept by reachability), not host calls;
// the ABI module lists those too, next to its host groups (the names hosts call, checked below).
const NOT_HOST_CODE = new Set(["src/policy/builtins", "src/policy/abi.ts"]);
const HOST_GROUPS = { ...SDK_EXPORTS, ...OPA_ABI_EXPORTS, ...TOOLGATE_HOST_EXPORTS };
const HOST_CODE = ["src", "test/conformance", "bench"];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (NOT_HOST_CODE.has(relative(root, path))) continue;
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|js|mjs)$/.test(name)) out.push(path);
  }
  return out;
}

function linkedExports(): Set<string> {
  const r = compilePolicy({ modules: [policy], entrypoints: [ENTRY] });
  expect(r.errors).toEqual([]);
  return new Set(runtimeLibrary(new Uint8Array(r.wasm!)).exports.map((e) => e.name));
}

describe("exports kept for hosts", () => {
  const exported = linkedExports();
  const runtimeExports = runtimeLibrary(runtimeBytes()).exports.map((e) => e.name);

  it("every export the opa-wasm SDK reads from its instance is in the linked module", () => {
    const require = createRequire(import.meta.url);
    // The package's entry sits next to opa.js, the module that drives an instance.
    const source = readFileSync(join(dirname(require.resolve("@open-policy-agent/opa-wasm")), "opa.js"), "utf8");
    const called = new Set([...source.matchAll(/exports\.([A-Za-z_$][\w$]*)/g)].map((m) => m[1]!));
    expect(called.size).toBeGreaterThan(10);
    for (const name of called) expect(exported, `SDK calls exports.${name}`).toContain(name);
  });

  it("every runtime export name toolgate's host code mentions is in the linked module", () => {
    const mentioned = new Map<string, string>();
    for (const dir of HOST_CODE) {
      for (const file of sourceFiles(join(root, dir))) {
        const text = readFileSync(file, "utf8");
        for (const name of runtimeExports) {
          if (!mentioned.has(name) && new RegExp(`\\b${name}\\b`).test(text)) mentioned.set(name, relative(root, file));
        }
      }
    }
    // The engines take their names from the ABI's host groups.
    for (const name of Object.values(HOST_GROUPS)) if (!mentioned.has(name)) mentioned.set(name, "src/policy/abi.ts");
    for (const required of ["opa_null", "opa_boolean", "tg_location", "opa_malloc"]) expect([...mentioned.keys()]).toContain(required);
    for (const [name, file] of mentioned) expect(exported, `${file} mentions ${name}`).toContain(name);
  });

  it("the linked module decides in the SDK and the fast engine alike", async () => {
    const r = compilePolicy({ modules: [policy], entrypoints: [ENTRY] });
    const data = JSON.parse(readFileSync(join(root, "policies", "data.json"), "utf8")) as Record<string, unknown>;
    const input = {
      tool: "get_account", effect: "read", args: {}, fingerprint: "fp", args_hash: "ah", operation_id: "op-1",
      principal: { tenant: "t1", user: "alice", roles: ["agent"] }, approval: null, now_ms: 1000, policy_version: "v1",
      policy_code_version: "c1", policy_data_version: "d1",
    };
    const sdk = await loadPolicy(r.wasm!);
    sdk.setData(data);
    const [viaSdk] = sdk.evaluate(input, ENTRY) as { result: { allow: boolean; reason: string } }[];
    expect(viaSdk!.result).toMatchObject({ allow: true, reason: "read_allowed" });
    const fast = await loadFastEngine({ wasm: r.wasm!, entrypoint: ENTRY, data: data as never });
    expect(fast.decide(input as unknown as PolicyInput)).toMatchObject({ allow: true, reason: "read_allowed" });
  });
});
