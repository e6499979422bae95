/**
 * createRuntime: the gate every model-proposed tool call goes through,
 * prepare -> authorize -> invoke, answering with one envelope and writing one
 * decision-log entry per call.
 */
import { randomUUID } from "node:crypto";
import type { TrustedContext } from "../generated-runtime.js";
import { consumeAfterInvoke } from "./approval-binding.js";
import { createApprovals } from "./approvals.js";
import type { Approvals } from "./approvals.js";
import { authorize, decide } from "./authorize.js";
import { terminal } from "./envelope.js";
import type { Envelope } from "./envelope.js";
import { abortRun } from "./handler-run.js";
import { invoke } from "./invoke.js";
import type { LogNote } from "./phase.js";
import { prepare } from "./prepare.js";
import { systemClock } from "./types.js";
import type { CallRequest, HandlerMap, LooseHandler, LooseReconciler, PreparedCall, ReconcilerMap, RuntimeDeps, RuntimeOptions } from "./types.js";

export interface Runtime {
  /** Runs one model-proposed call through the gate. Never throws for anything the model sends. */
  call(ctx: TrustedContext, request: CallRequest): Promise<Envelope>;
  readonly approvals: Approvals;
  /** Sets the run's durable interrupt flag and aborts its handlers in flight in this process. */
  interrupt(run: { readonly tenant: string; readonly run_id: string }, reason: string): Promise<void>;
  /** Clears the run's interrupt flag. */
  resume(run: { readonly tenant: string; readonly run_id: string }): Promise<void>;
  readonly policyVersion: string;
}

export class RuntimeConfigError extends Error {
  override name = "RuntimeConfigError";
}
export const isRuntimeConfigError = (e: unknown): e is RuntimeConfigError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "RuntimeConfigError";

export function createRuntime<H extends HandlerMap<H>, R extends ReconcilerMap<R> = Record<never, never>>(opts: RuntimeOptions<H, R>): Runtime {
  // The maps are typed per tool for the host; inside, arguments are validated JSON objects.
  const handlers = opts.handlers as unknown as Readonly<Record<string, LooseHandler>>;
  const reconcilers = (opts.reconcilers ?? {}) as unknown as Readonly<Record<string, LooseReconciler | undefined>>;
  const missing: string[] = [];
  for (const name of Object.keys(opts.manifest.tools)) {
    if (typeof handlers[name] !== "function") missing.push(`handler for ${name}`);
    if (opts.validators[name]?.input === undefined || opts.validators[name]?.output === undefined) missing.push(`validators for ${name}`);
  }
  if (missing.length > 0) throw new RuntimeConfigError(`createRuntime: missing ${missing.join(", ")}`);

  const deps: RuntimeDeps = {
    manifest: opts.manifest,
    validators: opts.validators,
    handlers,
    reconcilers,
    policy: opts.policy,
    store: opts.store,
    clock: opts.clock ?? systemClock,
    leaseMarginMs: opts.leaseMarginMs ?? 5_000,
    ownerId: opts.ownerId ?? `rt_${randomUUID()}`,
    pollIntervalMs: opts.pollIntervalMs ?? 10,
    inProgressWaitMs: opts.inProgressWaitMs ?? 2_000,
    inFlight: new Map(),
    flights: new Map(),
    onError: opts.onError ?? ((err: unknown) => void process.stderr.write(`toolgate runtime: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)),
  };

  const log = async (ctx: TrustedContext, req: CallRequest, call: PreparedCall | null, note: LogNote, env: Envelope): Promise<void> => {
    try {
      await deps.store.appendDecision({
        at_ms: deps.clock.now(),
        tenant: ctx.tenant,
        run_id: ctx.run_id,
        user: ctx.user,
        tool: call?.tool.name ?? String(req.tool),
        operation_id: call?.operation_id ?? (typeof req.operation_id === "string" ? req.operation_id : null),
        fingerprint: call?.fingerprint ?? null,
        decision: note.decision,
        reason: note.reason,
        policy_version: note.policy_version,
        outcome: env.outcome,
        outcome_reason: env.outcome === "success" ? null : env.reason,
      });
    } catch (err) {
      deps.onError(err); // the audit write failing must not turn a recorded effect into an error
    }
  };

  const call = async (ctx: TrustedContext, req: CallRequest): Promise<Envelope> => {
    let prepared: PreparedCall | null = null;
    let note: LogNote = { decision: "not_evaluated", reason: null, policy_version: null };
    let env: Envelope;
    try {
      const p = await prepare(deps, ctx, req);
      if (p.kind === "answer") {
        env = p.envelope;
        note = p.note;
      } else {
        prepared = p.value;
        const a = await authorize(deps, prepared);
        if (a.kind === "answer") {
          env = a.envelope;
          note = a.note;
        } else {
          note = a.value;
          const call = prepared;
          const late = async () => {
            const step = await decide(deps, call, deps.clock.now());
            note = step.kind === "answer" ? step.note : step.value;
            return step;
          };
          env = await invoke(deps, prepared, a.value, late);
          await consumeAfterInvoke(deps, prepared);
        }
      }
    } catch (err) {
      deps.onError(err);
      env = terminal("permanent_error", `internal error: ${err instanceof Error ? err.message : String(err)}`);
    }
    await log(ctx, req, prepared, note, env);
    return env;
  };

  return {
    call,
    approvals: createApprovals(deps),
    async interrupt(run, reason) {
      await deps.store.setInterrupt({ tenant: run.tenant, run_id: run.run_id, reason, at_ms: deps.clock.now() });
      abortRun(deps, run.tenant, run.run_id, reason);
    },
    async resume(run) {
      await deps.store.clearInterrupt(run.tenant, run.run_id);
    },
    get policyVersion() {
      return deps.policy.version;
    },
  };
}
