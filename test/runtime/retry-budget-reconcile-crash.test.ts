/**
 * The retry budget counts handler invocations that may have applied, not claims: a retry
 * process that takes over a crashed claim and crashes itself while reconciling (before any
 * handler runs) uses up nothing. Before the fix every such takeover counted an attempt, so
 * with max_attempts 1 the next retry ended `retry_exhausted` with no effect at all.
 * The crashed processes are simulated by their claims, made directly in the store and never
 * recorded, exactly what a process killed at that moment leaves behind. Both stores.
 */
import { beforeAll, expect, it } from "vitest";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { fingerprint, operationFingerprint } from "../../src/call-data/fingerprint.js";
import { alice, approved, loadShippedPolicy, makeGate, reserveArgs, withTool } from "./harness.js";
import { manifest } from "../../generated/index.js";
import { describeEachStore } from "../helpers/stores.js";

const reserve = manifest.tools["reserve_funds"]!;
const onceManifest = withTool("reserve_funds", { retry: { ...reserve.retry, max_attempts: 1 } });

describeEachStore("retry budget after a crashed reconcile", (stores) => {
  let policy: PolicyEngine;
  beforeAll(async () => {
    policy = await loadShippedPolicy();
  });

  it("retries that crash while reconciling do not exhaust max_attempts 1: the next retry runs the handler once", async () => {
    const store = await stores.fresh();
    const g = makeGate({ policy, store, manifest: onceManifest });
    const op = "op-reconcile-crash";
    const args = reserveArgs();
    const approvalId = await approved(g, alice, "reserve_funds", args, op);
    const claim = (owner: string) =>
      store.claimOperation({
        tenant: alice.tenant,
        operation_id: op,
        tool: "reserve_funds",
        fingerprint: operationFingerprint(fingerprint(alice.tenant, "reserve_funds", args, reserve.fingerprint), alice.user),
        owner,
        now_ms: g.clock.now(),
        lease_ms: 1_000,
        retention_ms: reserve.retention_ms,
      });
    // The first process claimed and died before its handler ran; two retries took over and died while reconciling.
    expect(await claim("first")).toMatchObject({ kind: "claimed", previous: null });
    for (const owner of ["retry-1", "retry-2"]) {
      g.clock.advance(2_000);
      expect(await claim(owner)).toMatchObject({ kind: "claimed", previous: "in_progress" });
    }
    g.clock.advance(2_000);
    const env = await g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: op, approval_id: approvalId });
    expect(env).toMatchObject({ outcome: "success" });
    expect(g.ledger.effects.filter((e) => e.operation_id === op)).toHaveLength(1);
  });

  it("the budget still bounds retries of released retryable answers", async () => {
    const store = await stores.fresh();
    const g = makeGate({ policy, store, manifest: onceManifest });
    const op = "op-retryable";
    const args = reserveArgs();
    const fp = operationFingerprint(fingerprint(alice.tenant, "reserve_funds", args, reserve.fingerprint), alice.user);
    const first = await store.claimOperation({ tenant: alice.tenant, operation_id: op, tool: "reserve_funds", fingerprint: fp, owner: "first", now_ms: g.clock.now(), lease_ms: 1_000, retention_ms: reserve.retention_ms });
    expect(first).toMatchObject({ kind: "claimed", record: { attempts: 1, fence_token: 1 } });
    await store.recordOutcome({ tenant: alice.tenant, operation_id: op, fence_token: 1, status: "retryable", envelope: { outcome: "retryable_failure", reason: "retryable_error", message: "try later" }, now_ms: g.clock.now() });
    const approvalId = await approved(g, alice, "reserve_funds", args, op);
    const env = await g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: op, approval_id: approvalId });
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "retry_exhausted" });
    expect(g.ledger.effects.filter((e) => e.operation_id === op)).toHaveLength(0);
  });
});
