/**
 * Durable pause and host-side resume, on both stores: the pending call is stored with
 * its trusted context; resume and the model's own retry are one operation (exactly one
 * effect in either order and under a race); resume survives a restart; rejected and
 * expired approvals resume to their terminal envelope; an edit resumes the edited call.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import { createApprovals } from "../../src/approvals/index.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import type { Envelope } from "../../src/runtime/envelope.js";
import { openSqliteStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/store.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";
import { decideAs } from "./decide-as.js";
import { describeEachStore } from "../helpers/stores.js";

let policy: PolicyEngine;
beforeAll(async () => {
  policy = await loadShippedPolicy();
});

const TRIALS = 100;

async function pause(gate: Gate, opId: string, amount = 1_000): Promise<string> {
  const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(amount), operation_id: opId });
  if (env.outcome !== "terminal_failure" || env.reason !== "approval_required" || env.approval_id === undefined) {
    throw new Error(`expected approval_required, got ${JSON.stringify(env)}`);
  }
  return env.approval_id;
}

const modelRetry = (gate: Gate, opId: string, approvalId: string, amount = 1_000): Promise<Envelope> =>
  gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(amount), operation_id: opId, approval_id: approvalId });

const resumed = async (gate: Gate, id: string): Promise<Envelope> => {
  const r = await gate.runtime.approvals.resume(id);
  if (!r.ok) throw new Error(`resume failed: ${r.message}`);
  return r.envelope;
};

describe("resume after a restart (SQLite file, store closed and reopened)", () => {
  it("a new process's runtime on the reopened file resumes the call the old one paused, once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-resume-"));
    try {
      const path = join(dir, "state.db");
      const before = makeGate({ policy, store: openSqliteStore(path) });
      const id = await pause(before, "op-reopen");
      await before.store.close();
      const after = makeGate({ policy, store: openSqliteStore(path), ledger: before.ledger, clock: before.clock });
      try {
        expect((await decideAs(after.runtime.approvals, id, "approve")).ok).toBe(true);
        expect(await resumed(after, id)).toMatchObject({ outcome: "success", replayed: false, operation_id: "op-reopen" });
        expect(await modelRetry(after, "op-reopen", id)).toMatchObject({ outcome: "success", replayed: true });
        expect(before.ledger.effectsOf("op-reopen")).toHaveLength(1);
      } finally {
        await after.store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeEachStore("resume", (stores) => {
  let store: Store;
  let gate: Gate;
  const fresh = async () => {
    store = await stores.fresh();
    gate = makeGate({ policy, store });
  };

  it("approval_required stores the pending call and says what happens next", async () => {
    await fresh();
    const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-next" });
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "approval_required", operation_id: "op-next" });
    if (env.outcome !== "terminal_failure") return;
    const approval = await store.getApproval(env.approval_id!);
    expect(env.expires_at).toBe(new Date(approval!.expires_at_ms).toISOString());
    expect(env.next).toMatch(/host resumes/);
    expect(env.next).toMatch(/approval_id/);
    expect(await store.getPendingCall(env.approval_id!)).toMatchObject({
      tenant: alice.tenant,
      user: alice.user,
      roles: [...alice.roles],
      run_id: alice.run_id,
      tool: "reserve_funds",
      args: reserveArgs(),
      operation_id: "op-next",
      policy_reason: "approval_required",
    });
  });

  it(`resume then the model's retry: one effect, the retry replays (${TRIALS} trials)`, async () => {
    await fresh();
    for (let i = 0; i < TRIALS; i++) {
      const op = `op-rf-${i}`;
      const id = await pause(gate, op);
      expect((await decideAs(gate.runtime.approvals, id, "approve")).ok).toBe(true);
      const first = await resumed(gate, id);
      const second = await modelRetry(gate, op, id);
      expect(first).toMatchObject({ outcome: "success", replayed: false, operation_id: op });
      expect(second).toMatchObject({ outcome: "success", replayed: true, operation_id: op });
      expect(gate.ledger.effectsOf(op)).toHaveLength(1);
    }
  });

  it(`the model's retry then resume: one effect, resume replays (${TRIALS} trials)`, async () => {
    await fresh();
    for (let i = 0; i < TRIALS; i++) {
      const op = `op-mf-${i}`;
      const id = await pause(gate, op);
      expect((await decideAs(gate.runtime.approvals, id, "approve")).ok).toBe(true);
      const first = await modelRetry(gate, op, id);
      const second = await resumed(gate, id);
      expect(first).toMatchObject({ outcome: "success", replayed: false });
      expect(second).toMatchObject({ outcome: "success", replayed: true });
      if (first.outcome === "success" && second.outcome === "success") expect(second.value).toEqual(first.value);
      expect(gate.ledger.effectsOf(op)).toHaveLength(1);
    }
  });

  it(`resume racing the model's retry from another runtime on the same store: exactly one effect (${TRIALS} trials)`, async () => {
    await fresh();
    // The host and the agent are separate runtimes (no shared in-process state); only the store joins them.
    const agent = makeGate({ policy, store, ledger: gate.ledger, clock: gate.clock });
    for (let i = 0; i < TRIALS; i++) {
      const op = `op-race-${i}`;
      const id = await pause(agent, op);
      expect((await decideAs(gate.runtime.approvals, id, "approve")).ok).toBe(true);
      const [host, model] = await Promise.all([resumed(gate, id), modelRetry(agent, op, id)]);
      expect(gate.ledger.effectsOf(op)).toHaveLength(1);
      const outcomes = [host, model].map((e) => e.outcome);
      // The loser either replays the winner's success or is told to come back (the winner still holds the lease).
      expect(outcomes).toContain("success");
      for (const e of [host, model]) {
        if (e.outcome === "success") expect(e.operation_id).toBe(op);
        else expect(e).toMatchObject({ outcome: "retryable_failure", operation_id: op });
      }
      expect(await modelRetry(agent, op, id)).toMatchObject({ outcome: "success", replayed: true });
    }
  });

  it("resume survives a restart: a new runtime finds the pending call in the store", async () => {
    await fresh();
    const id = await pause(gate, "op-restart");
    // The agent's process is gone; a new host process (new runtime) decides and resumes.
    const host = makeGate({ policy, store, ledger: gate.ledger, clock: gate.clock });
    expect((await decideAs(host.runtime.approvals, id, "approve")).ok).toBe(true);
    expect(await resumed(host, id)).toMatchObject({ outcome: "success", replayed: false, operation_id: "op-restart" });
    expect(gate.ledger.effectsOf("op-restart")).toHaveLength(1);
  });

  it("a rejected approval resumes to its terminal envelope and never runs the handler", async () => {
    await fresh();
    const id = await pause(gate, "op-rej");
    expect((await decideAs(gate.runtime.approvals, id, "reject", undefined, { reason: "too much" })).ok).toBe(true);
    expect(await resumed(gate, id)).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
    expect(await modelRetry(gate, "op-rej", id)).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
    expect(gate.ledger.effectsOf("op-rej")).toHaveLength(0);
  });

  it("an expired approval resumes to its terminal envelope; a pending one is not resumed", async () => {
    await fresh();
    const id = await pause(gate, "op-exp");
    const r = await gate.runtime.approvals.resume(id);
    expect(r).toMatchObject({ ok: false, why: "not_decided" });
    gate.clock.advance(manifest.tools.reserve_funds!.approval!.ttl_ms + 1);
    const env = await resumed(gate, id);
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
    if (env.outcome === "terminal_failure") expect(env.message).toMatch(/expired/);
    expect(gate.ledger.effectsOf("op-exp")).toHaveLength(0);
  });

  it("an unknown approval id is not_found, a hostile one too", async () => {
    await fresh();
    expect(await gate.runtime.approvals.resume("apr_nope")).toMatchObject({ ok: false, why: "not_found" });
    expect(await gate.runtime.approvals.resume("x".repeat(10_000))).toMatchObject({ ok: false, why: "not_found" });
  });

  it("an edit resumes the edited call (new arguments, new operation) exactly once", async () => {
    await fresh();
    const id = await pause(gate, "op-edit", 1_000);
    const out = await decideAs(gate.runtime.approvals, id, "edit", undefined, { edited_args: reserveArgs(700) });
    expect(out.ok).toBe(true);
    const first = await gate.runtime.approvals.resume(id);
    const again = await gate.runtime.approvals.resume(id);
    expect(first).toMatchObject({ ok: true, envelope: { outcome: "success", replayed: false } });
    expect(again).toMatchObject({ ok: true, envelope: { outcome: "success", replayed: true } });
    if (!first.ok) return;
    expect(first.approval_id).not.toBe(id);
    expect(first.operation_id).not.toBe("op-edit");
    expect(gate.ledger.effectsOf("op-edit")).toHaveLength(0);
    expect(gate.ledger.effectsOf(first.operation_id!)).toHaveLength(1);
    expect(gate.ledger.reservationByOperation(first.operation_id)).toMatchObject({ amount: 700 });
    // The edited call ran under the original requester's trusted context.
    expect(await store.getPendingCall(first.approval_id)).toMatchObject({ user: alice.user, run_id: alice.run_id, args: reserveArgs(700) });
  });

  it("a standalone createApprovals (no handlers) decides; the host's runtime resumes", async () => {
    await fresh();
    const id = await pause(gate, "op-standalone");
    const approvals = createApprovals({ store, manifest, validators, policy, clock: gate.clock });
    expect((await decideAs(approvals, id, "approve")).ok).toBe(true);
    expect((await approvals.get(id))?.status).toBe("approved");
    expect(await resumed(gate, id)).toMatchObject({ outcome: "success" });
    expect(gate.ledger.effectsOf("op-standalone")).toHaveLength(1);
  });

  it("onPendingApproval fires once per new pending approval, with the stored call", async () => {
    await fresh();
    const seen: string[] = [];
    const g = makeGate({ policy, store });
    const rt = (await import("../../src/runtime/index.js")).createRuntime({
      manifest,
      validators,
      handlers: g.handlers,
      policy,
      store,
      clock: g.clock,
      onPendingApproval: (a, call) => void seen.push(`${a.id}:${call.user}:${call.operation_id}`),
    });
    const first = await rt.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-hook" });
    const second = await rt.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-hook" });
    expect(first.outcome === "terminal_failure" && first.approval_id).toBeTruthy();
    expect(second.outcome === "terminal_failure" && second.approval_id).toBe(first.outcome === "terminal_failure" && first.approval_id);
    expect(seen).toEqual([`${first.outcome === "terminal_failure" ? first.approval_id : ""}:alice:op-hook`]);
  });
});
