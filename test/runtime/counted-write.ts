/**
 * One approved reserve_funds through a gate on a counting store, counted from the call
 * alone: the gate's first call (which records its policy once per process) and the approval
 * are made, and the queued decision log flushed, before the counter is reset.
 */
import { randomUUID } from "node:crypto";
import type { PolicyEngine } from "../../src/policy/engine.js";
import type { Envelope } from "../../src/runtime/index.js";
import { alice, approved, makeGate, reserveArgs } from "./harness.js";
import type { CountingStore } from "./statement-count.js";

export async function countedApprovedWrite(c: CountingStore, policy: PolicyEngine, prefix: string): Promise<{ env: Envelope; op: string; approvalId: string }> {
  const g = makeGate({ policy, store: c.store });
  await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
  const op = `${prefix}-${randomUUID()}`;
  const approvalId = await approved(g, alice, "reserve_funds", reserveArgs(), op);
  await c.store.flushDecisions();
  c.reset();
  const env = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: op, approval_id: approvalId });
  await c.store.flushDecisions();
  return { env, op, approvalId };
}
