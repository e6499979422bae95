/**
 * `toolgate serve` as a process over a SQLite file: it prints its URL, serves the JSON
 * API to a bearer token from `toolgate token`'s issuer, and with --webhook announces a
 * new pending approval (signed) with a link under its base URL.
 */
import { startCliProcess } from "../helpers/cli-process.js";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { issueApproverToken, verifyWebhookSignature } from "../../src/server/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { manualClock } from "../../src/testing/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs, until } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";

const APPROVER_SECRET = "serve-test-approver-secret-0123456789";
const WEBHOOK_SECRET = "serve-test-webhook-secret";

let policy: PolicyEngine;
let dir: string;
let gate: Gate;
let child: ChildProcess | null = null;
let base = "";
const hooks: { body: string; signature: string | null }[] = [];
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString("utf8")));
  req.on("end", () => {
    hooks.push({ body, signature: (req.headers["x-toolgate-signature"] as string | undefined) ?? null });
    res.writeHead(204).end();
  });
});

beforeAll(async () => {
  policy = await loadShippedPolicy();
  dir = mkdtempSync(join(tmpdir(), "toolgate-serve-"));
  const db = join(dir, "state.db");
  gate = makeGate({ policy, store: openSqliteStore(db), clock: manualClock(Date.now()) });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  child = startCliProcess(["serve", "--db", db, "--port", "0", "--webhook", hook], {
    env: { TOOLGATE_APPROVER_SECRET: APPROVER_SECRET, TOOLGATE_WEBHOOK_SECRET: WEBHOOK_SECRET },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  await until(() => /inbox at (http:\/\/\S+)\/approvals/.test(out) || child?.exitCode !== null, 30_000).catch(() => undefined);
  const m = /inbox at (http:\/\/\S+)\/approvals/.exec(out);
  if (m === null) throw new Error(`toolgate serve did not start: ${out}${err}`);
  base = m[1]!;
}, 60_000);

afterAll(async () => {
  if (child !== null && child.exitCode === null) {
    const exited = new Promise((r) => child!.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  await gate?.store.close();
  await new Promise<void>((r) => receiver.close(() => r()));
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("toolgate serve", () => {
  it("serves the JSON API and the inbox, announces new pending approvals, and records decisions the host then resumes", async () => {
    const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(77), operation_id: "op-serve" });
    const id = env.outcome === "terminal_failure" ? env.approval_id! : "";
    await until(() => hooks.length > 0, 15_000);
    const hook = hooks[0]!;
    expect(verifyWebhookSignature(WEBHOOK_SECRET, hook.body, hook.signature)).toBe(true);
    expect(JSON.parse(hook.body)).toMatchObject({ approval_id: id, url: `${base}/approvals/${id}` });

    const token = await issueApproverToken({ secret: APPROVER_SECRET, tenant: "t_acme", user: "bob", roles: ["approver"] });
    const auth = { authorization: `Bearer ${token}` };
    expect((await fetch(`${base}/api/approvals`)).status).toBe(401);
    const list = (await (await fetch(`${base}/api/approvals?status=pending`, { headers: auth })).json()) as { approvals: { id: string }[] };
    expect(list.approvals.map((a) => a.id)).toEqual([id]);
    const page = await fetch(`${base}/approvals/${id}`, { headers: auth });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("acc_alice");
    const decided = await fetch(`${base}/api/approvals/${id}/decision`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve", reason: "ok" }),
    });
    expect(decided.status).toBe(200);
    // serve decides but never executes: the host's runtime resumes the stored call.
    expect(await decided.json()).toMatchObject({ ok: true, approval: { status: "approved" }, resumed: null });
    expect(gate.ledger.effectsOf("op-serve")).toHaveLength(0);
    expect(await gate.runtime.approvals.resume(id)).toMatchObject({ ok: true, envelope: { outcome: "success" } });
    expect(gate.ledger.effectsOf("op-serve")).toHaveLength(1);
  }, 60_000);
});
