/**
 * The gate the worker processes (and the parent test) run: the real runtime
 * (createRuntime) over a given store, with the example catalog's reserve_funds
 * tool whose handler writes its effect to the side table in PostgreSQL and whose
 * reconciler reads it back. `hooks` let a test stop a worker at a chosen point.
 */
import { manifest as fullManifest, validators } from "../../../generated/index.js";
import type { ReserveFundsInput } from "../../../generated/index.js";
import type { InvokeContext } from "../../../src/generated-runtime.js";
import type { Manifest } from "../../../src/manifest.js";
import type { PolicyEngine } from "../../../src/policy/engine.js";
import { createRuntime, type Clock, type Runtime } from "../../../src/runtime/index.js";
import type { Store } from "../../../src/store/store.js";
import type { EffectSink } from "./effects-table.js";

export interface GateHooks {
  /** Before the effect (to keep the operation in progress while others arrive). */
  delayMs?: number;
  /** After the effect, before the handler returns (i.e. before the outcome is recorded). */
  afterEffect?: (info: { fence_token: number | null; seq: number }) => Promise<void>;
  /**
   * Right before the store claims the operation (claim-first in authorize, or a claim in
   * invoke): after the call state was last read on its own, the claim is the next check.
   */
  beforeClaim?: () => Promise<void>;
}

export interface GateOptions {
  readonly store: Store;
  /** Where the handler performs its effect and the reconciler looks for it. */
  readonly effects: EffectSink;
  readonly name: string;
  /** The compiled shipped policy (policy.ts). */
  readonly policy: PolicyEngine;
  /** reserve_funds' handler timeout; the lease is this plus the margin. */
  readonly timeoutMs: number;
  readonly leaseMarginMs: number;
  /** How long a caller waits for an operation running elsewhere before answering retryable_failure. */
  readonly inProgressWaitMs?: number;
  readonly clock?: Clock;
  readonly hooks?: GateHooks;
}

/** The catalog cut down to the one tool these tests drive, with a test-sized timeout. */
export function workerManifest(timeoutMs: number): Manifest {
  const tool = fullManifest.tools.reserve_funds;
  return { ...fullManifest, tools: { reserve_funds: { ...tool, timeout_ms: timeoutMs } } };
}

const success = (seq: number, amount: number) =>
  ({
    ok: true,
    value: { reservation_id: `res_${seq}`, state: "reserved" },
    resource_id: `res_${seq}`,
    observed_state: { amount, state: "reserved" },
  }) as const;

export function buildGate(opts: GateOptions): Runtime {
  const hooks = opts.hooks ?? {};
  return createRuntime({
    manifest: workerManifest(opts.timeoutMs),
    validators: { reserve_funds: validators.reserve_funds },
    policy: opts.policy,
    store: pausingStore(opts.store, hooks),
    leaseMarginMs: opts.leaseMarginMs,
    ownerId: opts.name,
    pollIntervalMs: 10,
    ...(opts.inProgressWaitMs === undefined ? {} : { inProgressWaitMs: opts.inProgressWaitMs }),
    ...(opts.clock === undefined ? {} : { clock: opts.clock }),
    handlers: {
      async reserve_funds(args: ReserveFundsInput, ctx: InvokeContext) {
        if (hooks.delayMs !== undefined) await new Promise((r) => setTimeout(r, hooks.delayMs));
        const seq = await opts.effects.apply({
          tenant: ctx.tenant,
          operation_id: ctx.operation_id ?? "",
          fence_token: ctx.fence_token ?? 0,
          worker: opts.name,
          amount: args.amount,
        });
        await hooks.afterEffect?.({ fence_token: ctx.fence_token, seq });
        return success(seq, args.amount);
      },
    },
    reconcilers: {
      // Reads the observed state: the effect of this operation id, if any attempt made it.
      async reserve_funds(args: ReserveFundsInput, ctx: InvokeContext) {
        const seq = await opts.effects.find(ctx.tenant, ctx.operation_id ?? "");
        return seq === null ? ({ ok: "not_applied" } as const) : success(seq, args.amount);
      },
    },
  });
}

function pausingStore(inner: Store, hooks: GateHooks): Store {
  return new Proxy(inner, {
    get(target, key) {
      const v: unknown = Reflect.get(target, key, target);
      if (typeof v !== "function") return v;
      const method = (v as (...a: unknown[]) => Promise<unknown>).bind(target);
      if (key !== "claimFirst" && key !== "claimOperation") return method;
      return async (...a: unknown[]) => (await hooks.beforeClaim?.(), method(...a));
    },
  });
}
