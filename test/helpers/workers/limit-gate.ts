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

/** reserve_funds limited to `maxSum` per account over 24h, with a natural key of account and recipient when `naturalKey`. */
export function limitManifest(maxSum: number): Manifest {
  const tool = fullManifest.tools.reserve_funds;
  return {
    ...fullManifest,
    tools: { reserve_funds: { ...tool, timeout_ms: 10_000, limits: [limitName] }, page_once: { ...tool, name: "page_once", timeout_ms: 10_000, idempotency_key: ["account_id", "recipient"] } },
    limits: { [limitName]: { name: limitName, per: ["account_id"], window_ms: 86_400_000, sum: "amount", max_sum: maxSum, max_count: null, tools: ["reserve_funds"] } },
  };
}

const allowAll: PolicyEngine = { version: "allow-all", evaluate: async () => ({ allow: true, reason: "allowed", requires_approval: false }) };

const success = (seq: number, amount: number) =>
  ({ ok: true, value: { reservation_id: `res_${seq}`, state: "reserved" }, resource_id: `res_${seq}`, observed_state: { amount, state: "reserved" } }) as const;

export function buildLimitGate(opts: { readonly store: Store; readonly effects: EffectSink; readonly name: string; readonly maxSum: number }): Runtime {
  const handler = async (args: ReserveFundsInput, ctx: InvokeContext) => {
    const seq = await opts.effects.apply({ tenant: ctx.tenant, operation_id: ctx.operation_id ?? "", fence_token: ctx.fence_token ?? 0, worker: opts.name, amount: args.amount });
    return success(seq, args.amount);
  };
  return createRuntime({
    manifest: limitManifest(opts.maxSum),
    validators: { reserve_funds: validators.reserve_funds, page_once: validators.reserve_funds },
    policy: allowAll,
    store: opts.store,
    ownerId: opts.name,
    inProgressWaitMs: 60_000,
    handlers: { reserve_funds: handler, page_once: handler },
    onError: (e) => void process.stderr.write(`${opts.name}: ${e instanceof Error ? e.message : String(e)}\n`),
  });
}
