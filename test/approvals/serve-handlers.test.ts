/**
 * `toolgate serve --handlers <module>` as a process, on SQLite and PostgreSQL: it runs an
 * approved call on approval through resume, so an approval that races the host's own
 * resume and the agent's retry still has exactly one effect across both processes; the
 * page and the API say the call ran. Without --handlers the page says the call waits for
 * the host.
 */
import { startCliProcess } from "../helpers/cli-process.js";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { issueApproverToken } from "../../src/server/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/store.js";
import { manualClock } from "../../src/testing/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs, until } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const SECRET = "serve-handlers-approver-secret-0123456789";

interface Served {
  readonly base: string;
  readonly child: ChildProcess;
}

async function startServe(storeFlags: readonly string[], extra: readonly string[], env: Record<string, string>): Promise<Served> {
  const child = startCliProcess(["serve", ...storeFlags, "--port", "0", ...extra], { env: { TOOLGATE_APPROVER_SECRET: SECRET, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  await until(() => /inbox at (http:\/\/\S+)\/approvals/.test(out) || child.exitCode !== null, 45_000).catch(() => undefined);
  const m = /inbox at (http:\/\/\S+)\/approvals/.exec(out);
  if (m === null) throw new Error(`toolgate serve did not start: ${out}${err}`);
  return { base: m[1]!, child };
}

async function stopServe(s: Served | null): Promise<void> {
  if (s === null || s.child.exitCode !== null) return;
  const exited = new Promise((r) => s.child.once("exit", r));
  s.child.kill("SIGTERM");
  await exited;
}

let policy: PolicyEngine;
beforeAll(async () => {
  policy = await loadShippedPolicy();
});

describeEachStore("toolgate serve --handlers", (stores) => {
  let dir: string;
  let store: Store;
  let flags: string[];
  let served: Served | null = null;
  const effectLog = () => join(dir, "effects.jsonl");
  const servedEffects = (op: string): number =>
    existsSync(effectLog())
      ? readFileSync(effectLog(), "utf8")
          .split("\n")
          .filter((l) => l !== "" && (JSON.parse(l) as { operation_id: string | null }).operation_id === op).length
      : 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolgate-serve-handlers-"));
    store = await stores.fresh();
    flags = stores.cliArgs();
    served = await startServe(flags, ["--handlers", "test/approvals/fixtures/effect-log-handlers.ts"], { TOOLGATE_TEST_EFFECT_LOG: effectLog() });
  }, 90_000);

  afterAll(async () => {
    await stopServe(served);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("an approval in serve --handlers runs the call once, racing the host's resume and the agent's retry, and the page says it ran", async () => {
    const gate = makeGate({ policy, store, clock: manualClock(Date.now()) });
    const auth = { authorization: `Bearer ${await issueApproverToken({ secret: SECRET, tenant: "t_acme", user: "bob", roles: ["approver"] })}` };
    const base = served!.base;
    for (let round = 0; round < 3; round++) {
      const op = `op-serve-run-${round}`;
      const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(100 + round), operation_id: op });
      if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
      const id = env.approval_id;
      const before = (await (await fetch(`${base}/api/approvals/${id}`, { headers: auth })).json()) as { next_step: { state: string; text: string } };
      expect(before.next_step.state).toBe("awaiting_decision");
      expect(before.next_step.text).toContain("this inbox runs it on the host as soon as it is approved");
      // The host's resume and the agent's retry start before the approval lands and keep trying until it does.
      let decided = false;
      const hostResume = (async () => {
        await until(async () => decided || (await gate.runtime.approvals.resume(id)).ok, 30_000);
        return gate.runtime.approvals.resume(id);
      })();
      const agentRetry = (async () => {
        await until(async () => decided || (await gate.store.getApproval(id))?.status === "approved", 30_000);
        return gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(100 + round), operation_id: op, approval_id: id });
      })();
      const res = await fetch(`${base}/api/approvals/${id}/decision`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ decision: "approve" }) });
      decided = true;
      expect(res.status).toBe(200);
      const body = (await res.json()) as { resumed: { ok: boolean; envelope: { outcome: string } }; next_step: { state: string } };
      expect(body.resumed).toMatchObject({ ok: true });
      const [host, agent] = await Promise.all([hostResume, agentRetry]);
      expect(host).toMatchObject({ ok: true, envelope: { outcome: "success" } });
      // The agent may meet the operation while another caller holds it (retryable); it never runs it a second time.
      expect(["success", "retryable_failure"]).toContain(agent.outcome);
      expect(servedEffects(op) + gate.ledger.effectsOf(op).length).toBe(1);
      const page = await (await fetch(`${base}/approvals/${id}`, { headers: auth })).text();
      expect(page).toMatch(/id="next-step" data-state="ran"><strong>What happens next:<\/strong> The call has run: success\./);
    }
  }, 120_000);
}, { sqlite: "file" });

describe("toolgate serve without --handlers (sqlite)", () => {
  let dir: string;
  let served: Served | null = null;
  afterAll(async () => {
    await stopServe(served);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("a decide-only serve says an approved call waits for the host to resume it, and that it ran once the host did", async () => {
    dir = mkdtempSync(join(tmpdir(), "toolgate-serve-decide-"));
    const db = join(dir, "state.db");
    const gate = makeGate({ policy, store: openSqliteStore(db), clock: manualClock(Date.now()) });
    try {
      served = await startServe(["--db", db], [], {});
      const auth = { authorization: `Bearer ${await issueApproverToken({ secret: SECRET, tenant: "t_acme", user: "bob", roles: ["approver"] })}` };
      const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(55), operation_id: "op-decide-only" });
      const id = env.outcome === "terminal_failure" ? env.approval_id! : "";
      const before = (await (await fetch(`${served.base}/api/approvals/${id}`, { headers: auth })).json()) as { next_step: { text: string }; tool_info: { effect: string; description: string } };
      expect(before.next_step.text).toContain("this inbox does not run calls");
      expect(before.tool_info).toMatchObject({ effect: "reversible_write", description: expect.stringMatching(/escrow/i) });
      const res = await fetch(`${served.base}/api/approvals/${id}/decision`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ decision: "approve" }) });
      expect(await res.json()).toMatchObject({ resumed: null, next_step: { state: "awaiting_resume" } });
      expect(gate.ledger.effectsOf("op-decide-only")).toHaveLength(0);
      const waiting = await (await fetch(`${served.base}/approvals/${id}`, { headers: auth })).text();
      expect(waiting).toMatch(/data-state="awaiting_resume"><strong>What happens next:<\/strong> Approved; the call has not run yet\. It waits for the host to resume it/);
      expect(await gate.runtime.approvals.resume(id)).toMatchObject({ ok: true, envelope: { outcome: "success" } });
      const ran = await (await fetch(`${served.base}/approvals/${id}`, { headers: auth })).text();
      expect(ran).toContain('data-state="ran"');
      expect(gate.ledger.effectsOf("op-decide-only")).toHaveLength(1);
    } finally {
      await gate.store.close();
    }
  }, 90_000);
});
