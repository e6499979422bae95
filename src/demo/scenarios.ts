/**
 * The demo run behind `toolgate demo` / `npm start`: the example escrow tools through
 * the gate, against a fresh SQLite file, printing every envelope. Each scenario shows
 * one guarantee; `runDemo` returns the envelopes so a test can check them.
 */
import { createGate, manifest, validators } from "../../generated/index.js";
import type { ReserveFundsInput, ToolHandlers } from "../../generated/index.js";
import type { TrustedContext } from "../generated-runtime.js";
import type { Manifest } from "../manifest.js";
import type { PolicyEngine } from "../policy/engine.js";
import { createRuntime } from "../runtime/index.js";
import type { Envelope, ToolEnvelope } from "../runtime/index.js";
import { argsHash, fingerprint } from "../call-data/fingerprint.js";
import { decisionIdOfError } from "../runtime/thrown-errors.js";
import { versionsOf } from "../policy/version.js";
import type { Store } from "../store/store.js";
import { lostResponse } from "../testing/adversarial.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "./escrow.js";

export interface DemoStep {
  readonly title: string;
  readonly envelope: Envelope | null;
  readonly note?: string;
}

/** The demo shortens reserve_funds' timeout so the timeout scenario does not wait 5 s. */
export const DEMO_TIMEOUT_MS = 300;

const ctx: TrustedContext = { tenant: "t_acme", user: "alice", roles: ["agent"], run_id: "run_demo" };

export async function runDemo(policy: PolicyEngine, store: Store, print: (step: DemoStep) => void): Promise<DemoStep[]> {
  const ledger = new EscrowLedger();
  const base = escrowHandlers(ledger);
  const lost = lostResponse(base.reserve_funds);
  let resets = 0;
  const handlers: ToolHandlers = {
    ...base,
    // The first read of acc_bob meets a reset connection (tools.yaml declares ECONNRESET retryable for get_account).
    get_account: (args, c) => {
      if (args.account_id === "acc_bob" && resets++ === 0) throw Object.assign(new Error("read ECONNRESET ledger-db.internal:5432"), { code: "ECONNRESET" });
      return base.get_account(args, c);
    },
    // Operation "op-timeout" loses its response after the effect: the answer never arrives.
    reserve_funds: (args, c) => (c.operation_id === "op-timeout" && c.fence_token === 1 ? lost(args, c) : base.reserve_funds(args, c)),
  };
  const reserve = manifest.tools.reserve_funds;
  if (reserve === undefined) throw new Error("tools.yaml has no reserve_funds");
  const demoManifest: Manifest = { ...manifest, tools: { ...manifest.tools, reserve_funds: { ...reserve, timeout_ms: DEMO_TIMEOUT_MS } } };
  const runtime = createRuntime({ manifest: demoManifest, validators, handlers, reconcilers: escrowReconcilers(ledger), policy, store });
  // Typed calls: the arguments are checked against each tool's input type at compile time.
  const { tools } = createGate(runtime);

  const steps: DemoStep[] = [];
  const show = (title: string, typed: ToolEnvelope<unknown> | null, note?: string): Envelope | null => {
    // A typed envelope is the runtime's envelope with its success value's type narrowed.
    const envelope = typed as Envelope | null;
    const step = note === undefined ? { title, envelope } : { title, envelope, note };
    steps.push(step);
    print(step);
    return envelope;
  };
  const approvalOf = (e: ToolEnvelope<unknown> | null): string => (e !== null && e.outcome === "terminal_failure" ? (e.approval_id ?? "") : "");
  const approve = async (id: string, what: string): Promise<void> => {
    const d = await runtime.approvals.decide(id, { decision: "approve", reason: "checked with the customer" }, { tenant: ctx.tenant, user: "bob@ops", roles: ["approver"] });
    show(`bob@ops approves ${id} (${what})`, null, d.ok ? `decision recorded under policy ${d.approval.decision?.policy_version ?? "?"}` : d.message);
  };
  const r1000: ReserveFundsInput = { account_id: "acc_alice", amount: 1_000, currency: "EUR", recipient: "acc_bob" };

  show("1. read: get_account", await tools.get_account(ctx, { account_id: "acc_alice" }));
  const ask = show("2. write needing approval: reserve_funds 1000", await tools.reserve_funds(ctx, r1000, { operation_id: "op-1" }));
  const a1 = approvalOf(ask);
  await approve(a1, "reserve_funds 1000, op-1");
  show("3. the approved call commits", await tools.reserve_funds(ctx, r1000, { operation_id: "op-1", approval_id: a1 }));
  show("4. the same call again: replayed, no second effect", await tools.reserve_funds(ctx, r1000, { operation_id: "op-1", approval_id: a1 }));
  show("5. same operation id, amount changed to 2000: conflict", await tools.reserve_funds(ctx, { ...r1000, amount: 2_000 }, { operation_id: "op-1", approval_id: a1 }));

  const r10 = { ...r1000, amount: 10 };
  const a10 = approvalOf(await tools.reserve_funds(ctx, r10, { operation_id: "op-10" }));
  await approve(a10, "reserve_funds 10, op-10");
  show("6. an approval for 10 used for 1000: denied", await tools.reserve_funds(ctx, r1000, { operation_id: "op-1000", approval_id: a10 }));

  show("7a. destructive call: denied", await tools.close_account(ctx, { account_id: "acc_bob" }, { operation_id: "op-close" }));
  // Even an approval recorded for exactly this call does not unlock a destructive tool.
  const now = Date.now();
  await store.createApproval({
    id: "apr_close_demo", tenant: ctx.tenant, run_id: ctx.run_id, requested_by: ctx.user, tool: "close_account",
    args: { account_id: "acc_bob" }, preview: { account_id: "acc_bob" },
    fingerprint: fingerprint(ctx.tenant, "close_account", { account_id: "acc_bob" }, ["account_id"]),
    args_hash: argsHash(ctx.tenant, "close_account", { account_id: "acc_bob" }),
    operation_id: "op-close", created_at_ms: now, expires_at_ms: now + 60_000, policy_version: policy.version,
    policy_code_version: versionsOf(policy).code_version, policy_data_version: versionsOf(policy).data_version,
  });
  await approve("apr_close_demo", "close_account acc_bob, op-close");
  show("7b. destructive call with an approval: still denied", await tools.close_account(ctx, { account_id: "acc_bob" }, { operation_id: "op-close", approval_id: "apr_close_demo" }));

  const r500 = { ...r1000, amount: 500 };
  const a500 = approvalOf(await tools.reserve_funds(ctx, r500, { operation_id: "op-timeout" }));
  await approve(a500, "reserve_funds 500, op-timeout");
  show(`8a. the handler reserves, then its answer is lost: timeout after ${DEMO_TIMEOUT_MS} ms`, await tools.reserve_funds(ctx, r500, { operation_id: "op-timeout", approval_id: a500 }));
  show(
    "8b. retry with the same operation id: reconciled, not invoked twice",
    await tools.reserve_funds(ctx, r500, { operation_id: "op-timeout", approval_id: a500 }),
    `effects in the ledger for op-timeout: ${ledger.effectsOf("op-timeout").length}`,
  );
  const reset = await tools.get_account(ctx, { account_id: "acc_bob" });
  // The model's message names only the error id; the operator finds the full error by it.
  const errorId = reset.outcome === "success" ? "" : (/\(error (e_[0-9a-f]+)\)/.exec(reset.message)?.[1] ?? "");
  await store.flushDecisions();
  const logged = (await store.getDecision(decisionIdOfError(errorId) ?? ""))?.error ?? null;
  show("9a. read: get_account acc_bob, the ledger connection resets", reset, `decision log (toolgate log --error): ${logged === null ? "no entry" : `${logged.code ?? logged.name}: ${logged.message}`}`);
  if (reset !== null && reset.outcome === "retryable_failure") await new Promise((r) => setTimeout(r, reset.retry_after_ms));
  show("9b. the same read after retry_after_ms: recovered", await tools.get_account(ctx, { account_id: "acc_bob" }));
  // A payout larger than what is left of the day's limit: refused when claimed, before its handler (nothing is paid).
  const payout = { reservation_id: "res_demo", amount: 12_000, currency: "EUR" } as const;
  const aPay = approvalOf(await tools.confirm_transfer(ctx, payout, { operation_id: "op-payout" }));
  await approve(aPay, "confirm_transfer 12000, op-payout");
  show(
    "10. approved, but over the limit payouts_per_currency (10000 a day): refused when claimed",
    await tools.confirm_transfer(ctx, payout, { operation_id: "op-payout", approval_id: aPay }),
    `effects in the ledger for op-payout: ${ledger.effectsOf("op-payout").length}`,
  );
  show("summary", null, `${ledger.effects.length} effects in the ledger; ${(await store.listDecisions({ tenant: ctx.tenant })).length} decision-log entries`);
  return steps;
}
