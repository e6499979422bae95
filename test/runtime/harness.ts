/** Builds a gate over the generated escrow tools, an in-memory ledger and a SQLite store. */
import { readFileSync } from "node:fs";
import { manifest, validators } from "../../generated/index.js";
import type { ToolHandlers, ToolReconcilers } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../../src/demo/escrow.js";
import type { TrustedContext } from "../../src/generated-runtime.js";
import type { JsonObject, Manifest } from "../../src/manifest.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { createRuntime } from "../../src/runtime/index.js";
import type { ApproverContext } from "../../src/approvals/approver.js";
import type { Clock, Runtime } from "../../src/runtime/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/store.js";
import { manualClock } from "../../src/testing/index.js";
import type { ManualClock } from "../../src/testing/index.js";

export { compileShippedPolicyWasm, ENTRYPOINT, loadShippedPolicy, shippedData } from "../helpers/shipped-policy.js";

export const alice: TrustedContext = { tenant: "t_acme", user: "alice", roles: ["agent"], run_id: "run_1" };
export const mallory: TrustedContext = { tenant: "t_evil", user: "mallory", roles: ["agent"], run_id: "run_9" };
/** A human approver in alice's tenant (the approver's trusted identity). */
export const bob: ApproverContext = { tenant: "t_acme", user: "bob", roles: ["approver"] };

export const reserveArgs = (amount = 1_000, over: JsonObject = {}): JsonObject => ({
  account_id: "acc_alice",
  amount,
  currency: "EUR",
  recipient: "acc_bob",
  ...over,
});

export interface Gate {
  readonly runtime: Runtime;
  readonly ledger: EscrowLedger;
  readonly store: Store;
  readonly clock: ManualClock;
  readonly handlers: ToolHandlers;
}

export interface GateOptions {
  readonly policy: PolicyEngine;
  readonly store?: Store;
  readonly clock?: ManualClock;
  readonly ledger?: EscrowLedger;
  /** Replace some handlers (e.g. with adversarial fixtures wrapping the ledger's). */
  readonly handlers?: (base: ToolHandlers, ledger: EscrowLedger) => Partial<ToolHandlers>;
  readonly reconcilers?: (ledger: EscrowLedger) => ToolReconcilers;
  readonly manifest?: Manifest;
  readonly leaseMarginMs?: number;
  readonly maxArgsBytes?: number;
  readonly inProgressWaitMs?: number;
  readonly policyBudget?: number;
}

/** Per-tool manifest tweaks for tests (short timeouts, retry budgets) without touching tools.yaml. */
export function withTool(name: string, patch: Partial<Manifest["tools"][string]>): Manifest {
  const tool = manifest.tools[name];
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return { ...manifest, tools: { ...manifest.tools, [name]: { ...tool, ...patch } } };
}

export function makeGate(opts: GateOptions): Gate {
  const ledger = opts.ledger ?? new EscrowLedger();
  const base = escrowHandlers(ledger);
  const handlers: ToolHandlers = { ...base, ...(opts.handlers?.(base, ledger) ?? {}) };
  const store = opts.store ?? openSqliteStore(":memory:");
  const clock = opts.clock ?? manualClock();
  const runtime = createRuntime({
    manifest: opts.manifest ?? manifest,
    validators,
    handlers,
    reconcilers: (opts.reconcilers ?? escrowReconcilers)(ledger),
    policy: opts.policy,
    store,
    clock: clock as Clock,
    leaseMarginMs: opts.leaseMarginMs ?? 1_000,
    ...(opts.maxArgsBytes === undefined ? {} : { maxArgsBytes: opts.maxArgsBytes }),
    ...(opts.inProgressWaitMs === undefined ? {} : { inProgressWaitMs: opts.inProgressWaitMs }),
    ...(opts.policyBudget === undefined ? {} : { policyBudget: opts.policyBudget }),
    onError: () => undefined,
  });
  return { runtime, ledger, store, clock, handlers };
}

/** Waits (real time, bounded) until `cond` holds; keeps timing tests independent of machine load. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Requests an approval for a write, approves it as `approver`, and returns its id. */
export async function approved(gate: Gate, ctx: TrustedContext, tool: string, args: JsonObject, operation_id: string, approver = "bob"): Promise<string> {
  const first = await gate.runtime.call(ctx, { tool, args, operation_id });
  if (first.outcome !== "terminal_failure" || first.reason !== "approval_required" || first.approval_id === undefined) {
    throw new Error(`expected approval_required, got ${JSON.stringify(first)}`);
  }
  const decided = await gate.runtime.approvals.decide(first.approval_id, { decision: "approve" }, { tenant: ctx.tenant, user: approver, roles: ["approver"] });
  if (!decided.ok) throw new Error(`approval failed: ${decided.message}`);
  return first.approval_id;
}
