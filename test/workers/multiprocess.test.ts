/**
 * Several runtime worker processes sharing one PostgreSQL store: one effect per
 * (tenant, operation_id) however they race, crash or come back stale. Every
 * worker runs the real runtime (createRuntime) over openPgStore with the shipped
 * policy compiled to WebAssembly (compiled once, loaded by every worker); effects are
 * counted in the handler's own side table, not in the store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedContext } from "../../src/generated-runtime.js";
import type { CallRequest, Runtime } from "../../src/runtime/index.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import type { Store } from "../../src/store/store.js";
import { createEffectsTable, effectsOf, pgEffects } from "../helpers/workers/effects-table.js";
import { buildGate } from "../helpers/workers/gate.js";
import { startWorker, stopWorkers, type FromWorker, type WorkerHandle } from "../helpers/workers/harness.js";
import { createTestSchema, skipWithoutPg, type TestSchema } from "../helpers/pg-env.js";
import { loadPolicyFile, writeShippedPolicy } from "../helpers/workers/policy.js";

const skip = skipWithoutPg("multi-process workers");

// Generous for a loaded CI machine: a handler must not time out in the race test.
const TIMEOUT_MS = 2_000;
const LEASE_MARGIN_MS = 500;
const SHORT_WAIT_MS = 1_500;
const LEASE_MS = TIMEOUT_MS + LEASE_MARGIN_MS;
const ctx: TrustedContext = { tenant: "t1", user: "alice", roles: ["agent"], run_id: "run-1" };
const workerScript = new URL("./gate-worker.ts", import.meta.url);

type Env = Record<string, unknown>;

describe.skipIf(skip)("multi-process workers on PostgreSQL", () => {
  let env: TestSchema;
  let store: Store;
  let parent: Runtime;
  let workers: WorkerHandle[] = [];
  let nextId = 0;

  beforeAll(async () => {
    env = await createTestSchema();
    await createEffectsTable(env.pool);
    store = await openPgStore({ pool: env.pool });
    const policyPath = await writeShippedPolicy();
    const policy = await loadPolicyFile(policyPath);
    parent = buildGate({ store, effects: pgEffects(env.pool), name: "parent", policy, timeoutMs: TIMEOUT_MS, leaseMarginMs: LEASE_MARGIN_MS });
    workers = Array.from({ length: 8 }, (_, i) =>
      startWorker(workerScript, `w${i}`, {
        TOOLGATE_TEST_SCHEMA: env.schema,
        TG_POLICY_WASM: policyPath,
        TG_TIMEOUT_MS: String(TIMEOUT_MS),
        TG_LEASE_MARGIN_MS: String(LEASE_MARGIN_MS),
        TG_SHORT_WAIT_MS: String(SHORT_WAIT_MS),
      }),
    );
    await Promise.all(workers.map((w) => w.next("ready", 110_000)));
  }, 120_000);

  afterAll(async () => {
    for (const w of workers) if (w.child.connected) w.send({ type: "exit" });
    await Promise.race([Promise.all(workers.map((w) => w.exited)), new Promise((r) => setTimeout(r, 3_000))]);
    await stopWorkers(workers);
    await store?.close();
    await env?.drop();
  });

  /** Asks for the approval through the gate (approval_required), approves it, returns the approved request. */
  async function approved(operationId: string, amount: number): Promise<CallRequest> {
    const req = { tool: "reserve_funds", args: { account_id: "acc_1", amount, currency: "EUR", recipient: "acc_2" }, operation_id: operationId };
    const first = (await parent.call(ctx, req)) as unknown as Env;
    expect(first).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
    const approvalId = String(first["approval_id"]);
    const decided = await parent.approvals.decide(approvalId, { decision: "approve" }, { tenant: ctx.tenant, user: "bob", roles: ["approver"] });
    expect(decided.ok).toBe(true);
    return { ...req, approval_id: approvalId };
  }

  function send(w: WorkerHandle, request: CallRequest, extra: Env = {}): number {
    const id = ++nextId;
    w.send({ type: "call", id, ctx, request, ...extra });
    return id;
  }
  async function result(w: WorkerHandle, timeoutMs = 50_000): Promise<{ envelope: Env; ms: number }> {
    const m: FromWorker = await w.next("result", timeoutMs);
    return { envelope: m["envelope"] as Env, ms: Number(m["ms"]) };
  }
  const withoutReplayed = (e: Env): Env => {
    const { replayed: _, ...rest } = e;
    return rest;
  };

  it("8 workers, same write, same operation id, same moment: one effect, one envelope for all", async () => {
    const req = await approved("op-race", 101);
    const at = Date.now() + 400;
    // The winner's handler takes 300 ms, so the others find the operation in progress and wait.
    for (const w of workers) send(w, req, { at_ms: at, delay_ms: 300 });
    const results = await Promise.all(workers.map((w) => result(w)));
    const envelopes = results.map((r) => r.envelope);

    const effects = await effectsOf(env.pool, "t1", "op-race");
    expect(effects).toHaveLength(1);
    expect(envelopes.every((e) => e["outcome"] === "success")).toBe(true);
    expect(envelopes.filter((e) => e["replayed"] === false)).toHaveLength(1);
    for (const e of envelopes) expect(withoutReplayed(e)).toEqual(withoutReplayed(envelopes[0]!));
    expect(envelopes[0]).toMatchObject({ resource_id: `res_${effects[0]!.seq}`, operation_id: "op-race" });
    const record = await store.getOperation("t1", "op-race", Date.now());
    expect(record).toMatchObject({ status: "final", fence_token: 1, attempts: 1, lease_owner: effects[0]!.worker });
  });

  it("a worker SIGKILLed after the effect and before recording: another takes over after the lease and reconciles, no second effect", async () => {
    const req = await approved("op-crash", 202);
    const [victim, skewed, rescuer] = [workers[7]!, workers[5]!, workers[4]!];
    send(victim, req, { after_effect: "hang" });
    const effect = await victim.next("effect_done", 5_000);
    const killedAt = Date.now();
    victim.child.kill("SIGKILL");
    expect((await victim.exited).signal).toBe("SIGKILL");
    const held = await store.getOperation("t1", "op-crash", Date.now());
    expect(held).toMatchObject({ status: "in_progress", fence_token: 1, envelope: null });

    // A worker whose clock lags sees the dead worker's lease as live: it waits a bounded
    // time for the outcome, then answers retryable_failure with retry_after_ms, no effect.
    send(skewed, req, { clock_offset_ms: -60_000, short_wait: true });
    const waited = await result(skewed);
    expect(waited.ms).toBeGreaterThanOrEqual(SHORT_WAIT_MS);
    expect(waited.envelope).toMatchObject({ outcome: "retryable_failure", operation_id: "op-crash" });
    expect(Number(waited.envelope["retry_after_ms"])).toBeGreaterThan(0);

    send(rescuer, req);
    const rescued = await result(rescuer);
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_MS - 100);
    const effects = await effectsOf(env.pool, "t1", "op-crash");
    expect(effects).toHaveLength(1);
    expect(effects[0]!.seq).toBe(effect["seq"]);
    expect(rescued.envelope).toMatchObject({ outcome: "success", resource_id: `res_${effect["seq"]}`, replayed: false });
    // The reconciling takeover ran no handler: the one invocation that applied is the only attempt.
    expect(await store.getOperation("t1", "op-crash", Date.now())).toMatchObject({ status: "final", fence_token: 2, attempts: 1 });

    // Everyone after that replays the reconciled outcome.
    send(skewed, req);
    expect(withoutReplayed((await result(skewed)).envelope)).toEqual(withoutReplayed(rescued.envelope));
  });

  it("a stale worker (paused past its lease, old fence token) finishing late cannot overwrite the recorded outcome", async () => {
    const req = await approved("op-stale", 303);
    const [stale, fresh] = [workers[6]!, workers[3]!];
    send(stale, req, { after_effect: "wait" });
    await stale.next("effect_done", 5_000);
    stale.child.kill("SIGSTOP"); // a GC pause, a VM migration, a partition: it still believes it holds the lease

    send(fresh, req);
    const taken = await result(fresh);
    expect(taken.envelope).toMatchObject({ outcome: "success" });
    const before = await store.getOperation("t1", "op-stale", Date.now());
    expect(before).toMatchObject({ status: "final", fence_token: 2 });

    stale.child.kill("SIGCONT");
    stale.send({ type: "continue" });
    const late = await result(stale);
    const after = await store.getOperation("t1", "op-stale", Date.now());
    expect(after).toEqual(before); // nothing written under fence token 1
    expect(withoutReplayed(late.envelope)).toEqual(withoutReplayed(taken.envelope));
    expect(await effectsOf(env.pool, "t1", "op-stale")).toHaveLength(1);
  });
  // A call presenting an approval claims first, in authorize, before the policy runs: the claim
  // is the last check of a revoke or interrupt committed by another worker.
  it("an approval revoked by one worker right before another's claim stops the effect", async () => {
    const req = await approved("op-revoke", 404);
    const [caller, revoker] = [workers[2]!, workers[1]!];
    send(caller, req, { pause_before_claim: true });
    await caller.next("claiming"); // the caller is about to claim

    revoker.send({ type: "decide", id: ++nextId, approval_id: req.approval_id, decision: "revoke", approver: "carol", tenant: ctx.tenant });
    expect(await revoker.next("decided")).toMatchObject({ ok: true });

    caller.send({ type: "continue" });
    const stopped = await result(caller);
    expect(stopped.envelope).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
    expect(await effectsOf(env.pool, "t1", "op-revoke")).toHaveLength(0);
    expect(await store.getOperation("t1", "op-revoke", Date.now())).toBeNull(); // never claimed
    const events = await store.listApprovalEvents(String(req.approval_id));
    expect(events.map((e) => [e.decision, e.approver])).toEqual([["approve", "bob"], ["revoke", "carol"]]);

    // And a fresh call with the revoked approval is denied at authorize.
    send(revoker, req);
    expect((await result(revoker)).envelope).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
    expect(await effectsOf(env.pool, "t1", "op-revoke")).toHaveLength(0);
  });
  it("an interrupt set by one worker right before another's claim stops the effect", async () => {
    const req = await approved("op-interrupt", 505);
    const [caller, other] = [workers[0]!, workers[1]!];
    const run = { ...ctx, run_id: "run-interrupt" };
    send(caller, req, { ctx: run, pause_before_claim: true });
    await caller.next("claiming");

    other.send({ type: "interrupt", tenant: run.tenant, run_id: run.run_id, reason: "user pressed stop" });
    await other.next("interrupt_set");

    caller.send({ type: "continue" });
    expect((await result(caller)).envelope).toMatchObject({ outcome: "terminal_failure", reason: "interrupted" });
    expect(await effectsOf(env.pool, "t1", "op-interrupt")).toHaveLength(0);
    expect(await store.getOperation("t1", "op-interrupt", Date.now())).toBeNull();
  });
});
