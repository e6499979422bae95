/**
 * `toolgate approvals verify <id>` and `--all` on both stores: every decision's passkey
 * signature re-checked offline from the store and the registered public keys; exit 1 when a
 * signature is invalid, or missing where the tool requires one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { decisionChallenge, decisionRecord } from "../../src/approvals/decision-signature.js";
import { main } from "../../src/cli/main.js";
import type { JsonObject, Manifest } from "../../src/manifest.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { openSqliteStore } from "../../src/store/index.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import type { Store } from "../../src/store/store.js";
import { manualClock } from "../../src/testing/index.js";
import { manifest } from "../../generated/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs, withTool } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";
import { createTestSchema, skipWithoutPg } from "../workers/pg-env.js";
import type { TestSchema } from "../workers/pg-env.js";
import { softAuthenticator, tamperSignature } from "./soft-authenticator.js";

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

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  const error = vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void err.push(a.join(" ")));
  try {
    return { code: await main(argv), out: out.join("\n"), err: err.join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

interface Backend {
  readonly name: string;
  readonly skip: boolean;
  open(): Promise<{ store: Store; flags: string[]; close(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: "sqlite",
    skip: false,
    async open() {
      const file = join(dir, `state-${Math.random().toString(36).slice(2)}.db`);
      const store = openSqliteStore(file);
      return { store, flags: ["--db", file], close: () => store.close() };
    },
  },
  {
    name: "postgres",
    skip: skipWithoutPg("approvals verify"),
    async open() {
      const schema: TestSchema = await createTestSchema();
      const store = await openPgStore({ pool: schema.pool });
      return {
        store,
        flags: ["--url", schema.url, "--schema", schema.schema],
        close: async () => {
          await store.close();
          await schema.drop();
        },
      };
    },
  },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`toolgate approvals verify (${backend.name})`, () => {
    it("prints each decision as valid, invalid or unsigned and fails when a required signature is invalid or missing", async () => {
      const opened = await backend.open();
      try {
        const gate: Gate = makeGate({ policy, store: opened.store, manifest: signedManifest, clock: manualClock(Date.now()) });
        const key = softAuthenticator();
        await opened.store.saveApproverCredential(key.credential("t_acme", "bob"));
        const request = async (op: string): Promise<string> => {
          const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: op });
          if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
          return env.approval_id;
        };
        const sign = async (id: string, tamper: boolean): Promise<void> => {
          const record = decisionRecord((await opened.store.getApproval(id))!, "approve", "bob", null);
          const assertion = key.assert(decisionChallenge(record));
          await opened.store.saveDecisionSignature({
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
        const one = await cli("approvals", "verify", valid, ...opened.flags, ...project, "--tenant", "t_acme");
        expect(one.err).toBe("");
        expect(one.code).toBe(0);
        expect(one.out).toMatch(new RegExp(`${valid}.*OK[\\s\\S]*approve\\s+bob\\s+valid`));
        const bad = await cli("approvals", "verify", invalid, ...opened.flags, ...project);
        expect(bad.code).toBe(1);
        expect(bad.out).toMatch(/approve\s+bob\s+invalid/);
        const all = await cli("approvals", "verify", "--all", "--tenant", "t_acme", ...opened.flags, ...project, "--format", "json");
        expect(all.code).toBe(1);
        const report = JSON.parse(all.out) as { ok: boolean; approvals: { approval_id: string; ok: boolean; decisions: { state: string }[] }[] };
        const byId = new Map(report.approvals.map((a) => [a.approval_id, a]));
        expect(byId.get(valid)).toMatchObject({ ok: true, decisions: [{ state: "valid" }] });
        expect(byId.get(invalid)).toMatchObject({ ok: false, decisions: [{ state: "invalid" }] });
        expect(byId.get(unsigned)).toMatchObject({ ok: false, decisions: [{ state: "unsigned" }] });
        expect((await cli("approvals", "verify", ...opened.flags, ...project)).code).toBe(2);
      } finally {
        await opened.close();
      }
    });
  });
}
