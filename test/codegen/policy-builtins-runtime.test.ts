/**
 * tools.yaml `policy.builtins` reaches the running gate: codegen emits
 * generated/policy-builtins.ts importing the project's module, build compiles the policy
 * against it, and an application that hands `policyBuiltins` to its engine decides calls
 * with the custom builtin (a project without it cannot load the policy).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { createRuntime, loadPolicyEngineFromFiles, openSqliteStore, type Manifest, type PolicyEngine } from "../../src/index.js";
import type { CustomBuiltins, StandaloneValidator } from "../../src/generated-runtime.js";

// Inside the repository, so that `toolgate` resolves to the package itself.
const scratchRoot = join(fileURLToPath(new URL("../..", import.meta.url)), "test", "artifacts");

const TOOLS = `version: 1
policy:
  entrypoint: app/authz/decision
  builtins: ./src/policy-builtins.ts
tools:
  read_doc:
    description: Read one document.
    effect: read
    input:
      type: object
      additionalProperties: false
      required: [doc_id]
      properties:
        doc_id: { type: string }
    output:
      type: object
      additionalProperties: false
      required: [doc_id]
      properties:
        doc_id: { type: string }
`;

const BUILTINS = `import { defineBuiltins } from "toolgate";
const owners: Record<string, string> = { doc_1: "alice", doc_2: "bob" };
export default defineBuiltins({
  "acme.doc_owner": { args: ["string"], result: ["string", "null"], impl: (id) => owners[id] ?? null },
});
`;

const POLICY = `package app.authz

default decision := {"allow": false, "reason": "not_owner", "requires_approval": false}

decision := {"allow": true, "reason": "owner", "requires_approval": false} if {
	acme.doc_owner(input.args.doc_id) == input.principal.user
}
`;

interface Generated {
  readonly manifest: Manifest;
  readonly validators: Record<string, { readonly input: StandaloneValidator; readonly output: StandaloneValidator }>;
  readonly policyBuiltins: CustomBuiltins;
}

let cwd: string;
let dir: string;

const cli = async (args: string[]): Promise<number> => (await runCli(args)).code;

beforeAll(async () => {
  cwd = process.cwd();
  mkdirSync(scratchRoot, { recursive: true });
  dir = mkdtempSync(join(scratchRoot, "policy-builtins-runtime-"));
  mkdirSync(join(dir, "policies"));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "tools.yaml"), TOOLS);
  writeFileSync(join(dir, "src", "policy-builtins.ts"), BUILTINS);
  writeFileSync(join(dir, "policies", "authz.rego"), POLICY);
  process.chdir(dir);
  expect(await cli(["codegen"])).toBe(0);
  expect(await cli(["build"])).toBe(0);
});
afterAll(() => {
  process.chdir(cwd);
  rmSync(dir, { recursive: true, force: true });
});

describe("generated policy builtins", () => {
  it("codegen emits generated/policy-builtins.ts importing the module relative to generated/", () => {
    const text = readFileSync(join(dir, "generated", "policy-builtins.ts"), "utf8");
    expect(text).toContain('import * as declared from "../src/policy-builtins.js";');
    expect(readFileSync(join(dir, "generated", "index.ts"), "utf8")).toContain('export { policyBuiltins } from "./policy-builtins.js";');
  });

  it("a call through the gate is decided with the custom builtin", async () => {
    const gen = (await import(pathToFileURL(join(dir, "generated", "index.ts")).href)) as Generated;
    expect(gen.policyBuiltins.entries.map((e) => e.name)).toEqual(["acme.doc_owner"]);
    const policy: PolicyEngine = await loadPolicyEngineFromFiles({ wasm: join(dir, "generated", "policy.wasm"), entrypoint: gen.manifest.policy.entrypoint, builtins: gen.policyBuiltins });
    const store = openSqliteStore(":memory:");
    const handlers = { read_doc: async (args: { doc_id: string }) => ({ ok: true as const, value: { doc_id: args.doc_id } }) };
    const runtime = createRuntime({ manifest: gen.manifest, validators: gen.validators, handlers, policy, store });
    try {
      const alice = { tenant: "acme", user: "alice", roles: ["agent"], run_id: "run_1" };
      const own = await runtime.call(alice, { tool: "read_doc", args: { doc_id: "doc_1" } });
      expect(own).toMatchObject({ outcome: "success", value: { doc_id: "doc_1" } });
      const other = await runtime.call(alice, { tool: "read_doc", args: { doc_id: "doc_2" } });
      expect(other).toMatchObject({ outcome: "terminal_failure" });
      expect(JSON.stringify(other)).toContain("not_owner");
    } finally {
      await store.close();
    }
  });

  it("without the generated builtins the engine refuses the policy, naming the builtin", async () => {
    await expect(loadPolicyEngineFromFiles({ wasm: join(dir, "generated", "policy.wasm"), entrypoint: "app/authz/decision" })).rejects.toThrow(/acme\.doc_owner/);
  });

  it("a project without policy.builtins exports an empty set", async () => {
    const text = readFileSync(join(cwd, "generated", "policy-builtins.ts"), "utf8");
    expect(text).toContain("export const policyBuiltins: CustomBuiltins = NO_CUSTOM_BUILTINS;");
  });
});
