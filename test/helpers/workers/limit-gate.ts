/**
 * The gate of the limit and natural-key races: reserve_funds with a `max_sum` limit per account
 * (reserved_per_account) and, for calls to the natural-key variant, an idempotency key of
 * account and recipient; an allow-all policy, so the runtime's own enforcement is what is tested.
 */
import { manifest as fullManifest, validators } from "../../../generated/index.js";
import type { ReserveFundsInput } from "../../../generated/index.js";
import type { InvokeContext } from "../../../src/generated-runtime.js";
import type { Manifest } from "../../../src/manifest.js";
import type { PolicyEngine } from "../../../src/policy/engine.js";
import { createRuntime, type Runtime } from "../../../src/runtime/index.js";
import type { Store } from "../../../src/store/store.js";
import type { EffectSink } from "./effects-table.js";

export const limitName = "reserved_per_account";

/** reserve_funds limited to `maxSum` per account over 24h, and page_once with a natural key of account and recipient. */
export function limitManifest(maxSum: number, timeoutMs = 10_000): Manifest {
  const tool = fullManifest.tools.reserve_funds;
  return {
    ...fullManifest,
    tools: {
      reserve_funds: { ...tool, timeout_ms: timeoutMs, limits: [limitName] },
      page_once: { ...tool, name: "page_once", timeout_ms: timeoutMs, idempotency_key: ["account_id", "recipient"] },
    },
    limits: { [limitName]: { name: limitName, per: ["account_id"], window_ms: 86_400_000, sum: "amount", max_sum: maxSum, max_count: null, tools: ["reserve_funds"] } },
  };
}

/** Where a call is when a crash race may kill its process: deciding, claimed before its effect, after its effect before its outcome. */
export type CallPhase = "policy" | "before_effect" | "after_effect";

const allowAll = (onPhase: (p: CallPhase) => void): PolicyEngine => ({
  version: "allow-all",
  evaluate: async () => {
    onPhase("policy");
    return { allow: true, reason: "allowed", requires_approval: false };
  },
});

const success = (seq: number, amount: number) =>
  ({ ok: true, value: { reservation_id: `res_${seq}`, state: "reserved" }, resource_id: `res_${seq}`, observed_state: { amount, state: "reserved" } }) as const;

export interface LimitGateOptions {
  readonly store: Store;
  readonly effects: EffectSink;
  readonly name: string;
  readonly maxSum: number;
  /** The tools' timeout and the runtime's lease margin (the lease is their sum); default 10 s and the runtime's. */
  readonly timeoutMs?: number;
  readonly leaseMarginMs?: number;
  /** Told each phase a call reaches (a crash race kills the process there). */
  readonly onPhase?: (phase: CallPhase) => void;
}

/** The gate; its reconciler finds an operation's effect in the side table (authoritative: the handler writes it). */
export function buildLimitGate(opts: LimitGateOptions): Runtime {
  const onPhase = opts.onPhase ?? (() => undefined);
  const handler = async (args: ReserveFundsInput, ctx: InvokeContext) => {
    onPhase("before_effect");
    const seq = await opts.effects.apply({ tenant: ctx.tenant, operation_id: ctx.operation_id ?? "", fence_token: ctx.fence_token ?? 0, worker: opts.name, amount: args.amount });
    onPhase("after_effect");
    return success(seq, args.amount);
  };
  const reconciler = async (args: ReserveFundsInput, ctx: InvokeContext) => {
    const seq = await opts.effects.find(ctx.tenant, ctx.operation_id ?? "");
    return seq === null ? ({ ok: "not_applied" } as const) : success(seq, args.amount);
  };
  return createRuntime({
    manifest: limitManifest(opts.maxSum, opts.timeoutMs),
    validators: { reserve_funds: validators.reserve_funds, page_once: validators.reserve_funds },
    policy: allowAll(onPhase),
    store: opts.store,
    ownerId: opts.name,
    inProgressWaitMs: 60_000,
    ...(opts.leaseMarginMs === undefined ? {} : { leaseMarginMs: opts.leaseMarginMs }),
    handlers: { reserve_funds: handler, page_once: handler },
    reconcilers: { reserve_funds: reconciler, page_once: reconciler },
    onError: (e) => void process.stderr.write(`${opts.name}: ${e instanceof Error ? e.message : String(e)}\n`),
  });
}
