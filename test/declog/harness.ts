/** Gates for the decision-log, replay, shadow, hot-reload and telemetry tests, over either store. */
import { readFileSync } from "node:fs";
import { manifest as shippedManifest, validators } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../../src/demo/escrow.js";
import type { TrustedContext } from "../../src/generated-runtime.js";
import type { JsonObject, Manifest } from "../../src/manifest.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";
import { createRuntime } from "../../src/runtime/index.js";
import type { ApproverContext } from "../../src/runtime/index.js";
import type { Runtime, RuntimeOptions } from "../../src/runtime/index.js";
import type { Store } from "../../src/store/store.js";
import { manualClock } from "../../src/testing/index.js";
import type { ManualClock } from "../../src/testing/index.js";

export const ENTRYPOINT = "toolgate/authz/decision";
export const POLICY_WASM = "generated/policy.wasm";
export const shippedData = (): JsonObject => JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;

/** The checked-in build of policies/ (CI keeps it equal to its sources), with the shipped or given data. */
export function loadGeneratedPolicy(data: JsonObject = shippedData()): Promise<PolicyEngine> {
  return loadOpaWasmEngine({ wasm: new Uint8Array(readFileSync(POLICY_WASM)), entrypoint: ENTRYPOINT, data });
}

/** The shipped data with one change: `patch(config)` edits data.toolgate.config. */
export function changedData(patch: (config: Record<string, unknown>) => void): JsonObject {
  const data = shippedData();
  patch((data["toolgate"] as Record<string, unknown>)["config"] as Record<string, unknown>);
  return data;
}

export const alice: TrustedContext = { tenant: "t_acme", user: "alice", roles: ["agent"], run_id: "run_1" };
export const bob: ApproverContext = { tenant: "t_acme", user: "bob", roles: ["approver"] };
export const victor: TrustedContext = { tenant: "t_acme", user: "victor", roles: ["viewer"], run_id: "run_2" };

export interface DeclogGate {
  readonly runtime: Runtime;
  readonly ledger: EscrowLedger;
  readonly clock: ManualClock;
}

export function gate(
  store: Store,
  policy: PolicyEngine,
  extra: Partial<Pick<RuntimeOptions<ReturnType<typeof escrowHandlers>>, "shadowPolicy" | "telemetry" | "decisionLogRetentionMs" | "labels">> & { manifest?: Manifest } = {},
): DeclogGate {
  const ledger = new EscrowLedger();
  const clock = manualClock();
  const { manifest, ...rest } = extra;
  const runtime = createRuntime({
    manifest: manifest ?? shippedManifest,
    validators,
    handlers: escrowHandlers(ledger),
    reconcilers: escrowReconcilers(ledger),
    policy,
    store,
    clock,
    onError: () => undefined,
    ...rest,
  });
  return { runtime, ledger, clock };
}

export const reserve = (amount: number, extra: JsonObject = {}): JsonObject => ({ account_id: "acc_alice", amount, currency: "EUR", recipient: "acc_bob", ...extra });

/** Asks, approves as bob, and calls again with the approval; returns the final envelope. */
export async function approvedWrite(g: DeclogGate, ctx: TrustedContext, args: JsonObject, operation_id: string) {
  const ask = await g.runtime.call(ctx, { tool: "reserve_funds", args, operation_id });
  if (ask.outcome !== "terminal_failure" || ask.approval_id === undefined) throw new Error(`expected approval_required: ${JSON.stringify(ask)}`);
  const d = await g.runtime.approvals.decide(ask.approval_id, { decision: "approve" }, bob);
  if (!d.ok) throw new Error(d.message);
  return g.runtime.call(ctx, { tool: "reserve_funds", args, operation_id, approval_id: ask.approval_id });
}
