/**
 * `toolgate approvals verify <id>` and `--all` on both stores: every decision's passkey
 * signature re-checked offline from the store and the registered public keys; exit 1 when a
 * signature is invalid, or missing where the tool requires one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { decisionChallenge, decisionRecord } from "../../src/approvals/decision-signature.js";
import type { JsonObject, Manifest } from "../../src/manifest.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { manualClock } from "../../src/testing/index.js";
import { manifest } from "../../generated/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs, withTool } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";
import { softAuthenticator, tamperSignature } from "./soft-authenticator.js";
import { runCli, type CliRun } from "../helpers/cli.js";

const signedManifest: Manifest = withTool("reserve_funds", { approval: { ...manifest.tools["reserve_funds"]!.approval!, signed: true } });
let policy: PolicyEngine;
let dir: string;
let generated: string;
beforeAll(async () => {
  policy = await loadShippedPolicy();
  dir = mkdtempSync(join(tmpdir(), "toolgate-verify-cli-"));
  generated = join(dir, "generated");
  // The project's generated module as the CLI loads it: here with reserve_funds' approvals signed.
  mkdirSync(generated);
  writeFileSync(join(generated, "index.js"), `export const manifest = ${JSON.stringify(signedManifest)};\nexport const validators = {};\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<CliRun> {
  return runCli(argv);
}

describeEachStore("toolgate approvals verify", (stores) => {
  it("prints each decision as valid, invalid or unsigned and fails when a required signature is invalid or missing", async () => {
    const store = await stores.fresh();
    const flags = stores.cliArgs();
    const gate: Gate = makeGate({ policy, store, manifest: signedManifest, clock: manualClock(Date.now()) });
    const key = softAuthenticator();
    await store.saveApproverCredential(key.credential("t_acme", "bob"));
    const request = async (op: string): Promise<string> => {
      const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: op });
      if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
      return env.approval_id;
    };
    const sign = async (id: string, tamper: boolean): Promise<void> => {
      const record = decisionRecord((await store.getApproval(id))!, "approve", "bob", null);
      const assertion = key.assert(decisionChallenge(record));
      await store.saveDecisionSignature({
        approval_id: id,
        tenant: "t_acme",
        decision: "approve",
        approver: "bob",
        credential_id: key.credential_id,
        record: record as unknown as JsonObject,
        assertion: tamper ? tamperSignature(assertion) : assertion,
        signed_at_ms: Date.now(),
      });
    };
    const decide = async (id: string) => expect((await gate.runtime.approvals.decide(id, { decision: "approve" }, { tenant: "t_acme", user: "bob", roles: ["approver"] })).ok).toBe(true);
    const valid = await request("op-v-valid");
    await sign(valid, false);
    await decide(valid);
    const invalid = await request("op-v-invalid");
    await sign(invalid, true);
    await decide(invalid);
    const unsigned = await request("op-v-unsigned");
    await decide(unsigned);

    const project = ["--generated", generated];
    const one = await cli("approvals", "verify", valid, ...flags, ...project, "--tenant", "t_acme");
    expect(one.stderr).toBe("");
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(new RegExp(`${valid}.*OK[\\s\\S]*approve\\s+bob\\s+valid`));
    const bad = await cli("approvals", "verify", invalid, ...flags, ...project);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/approve\s+bob\s+invalid/);
    const all = await cli("approvals", "verify", "--all", "--tenant", "t_acme", ...flags, ...project, "--format", "json");
    expect(all.code).toBe(1);
    const report = JSON.parse(all.stdout) as { ok: boolean; approvals: { approval_id: string; ok: boolean; decisions: { state: string }[] }[] };
    const byId = new Map(report.approvals.map((a) => [a.approval_id, a]));
    expect(byId.get(valid)).toMatchObject({ ok: true, decisions: [{ state: "valid" }] });
    expect(byId.get(invalid)).toMatchObject({ ok: false, decisions: [{ state: "invalid" }] });
    expect(byId.get(unsigned)).toMatchObject({ ok: false, decisions: [{ state: "unsigned" }] });
    expect((await cli("approvals", "verify", ...flags, ...project)).code).toBe(2);
  });
}, { sqlite: "file" });
