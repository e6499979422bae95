/**
 * createRuntime: the gate every model-proposed tool call goes through,
 * prepare -> authorize -> invoke, answering with one envelope and writing one
 * decision-log entry per call (under one policy snapshot, traced when the host
 * installs OpenTelemetry).
 */
import { randomUUID } from "node:crypto";
import type { TrustedContext } from "../generated-runtime.js";
import { compensate } from "./compensate.js";
import type { CompensateOptions } from "./compensate.js";
import { missingContext, resolveContext } from "./context.js";
import type { LooseContextResolvers } from "./context.js";
import type { InboxApprovals } from "../approvals/approvals-api.js";
import { createApprovals } from "../approvals/create-approvals.js";
import { pausePendingCall } from "../approvals/pending.js";
import { resumeApproval } from "../approvals/resume.js";
import type { ResumeOutcomeOf } from "../approvals/types.js";
import type { JsonObject, Manifest, ToolManifestEntry } from "../manifest.js";
import { consumeAfterInvoke } from "../approvals/binding.js";
import { authorize, decide } from "./authorize.js";
import { decisionId as newDecisionId } from "../store/decision-id.js";
import { PolicyPublisher } from "./current-policy.js";
import { decisionEntry, decisionLabels, defaultDecisionLogRetentionMs } from "./decision-log.js";
import { terminal } from "./envelope.js";
import type { Envelope } from "./envelope.js";
import type { DecisionLogEntry, HandlerErrorDetail } from "../store/store.js";
import { abortRun } from "./handler-run.js";
import { HeldClaim } from "./held-claim.js";
import { callLimits } from "./limit-figures.js";
import { takeTurns } from "./limit-lock.js";
import { invoke } from "./invoke.js";
import type { OutcomeAudit } from "./invoke.js";
import { defaultLeaseMarginMs } from "./lease.js";
import { defaultMaxArgsBytes, loggableToolName } from "../call-data/limits.js";
import { listTools } from "./list-tools.js";
import { preflight } from "./preflight.js";
import type { LogNote } from "./phase.js";
import { checkEngine, PolicyHolder } from "./policy-holder.js";
import type { SharedDeps } from "./policy-holder.js";
import { prepare } from "./prepare.js";
import { Telemetry } from "./telemetry.js";
import type { SpanIds } from "./telemetry.js";
import type { ThrownErrorSlot } from "./thrown-errors.js";
import { systemClock } from "./types.js";
import type { CallOptions, CallRequest, ContextResolverMap, HandlerMap, LooseHandler, LooseReconciler, PreparedCall, ReconcilerMap, RuntimeDeps, RuntimeOptions } from "./types.js";
import { watchPolicyFile } from "./watch-policy.js";
import type { PolicyWatcher, WatchPolicyOptions } from "./watch-policy.js";
import type { PolicyEngine } from "../policy/engine.js";
import { isValidPolicyBudget, policyBudgetProblem } from "../policy/budget.js";

/** What `runtime.approvals.resume` answers: the approved call's envelope, or why it did not run. */
export type ResumeOutcome = ResumeOutcomeOf<Envelope>;

export interface RuntimeApprovals extends InboxApprovals {
  /**
   * Executes an approved call on the host's side (the model need not retry); the same
   * operation as the caller's retry with the approval id, so exactly one of them commits.
   * Distinct from `runtime.resume(run)`, which clears a run's interrupt flag.
   */
  resume(approvalId: string): Promise<ResumeOutcome>;
}

export interface Runtime {
  /** Runs one model-proposed call through the gate. Never throws for anything the model sends. */
  call(ctx: TrustedContext, request: CallRequest, options?: CallOptions): Promise<Envelope>;
  /** List, get, decide and resume approvals (`approvals.resume(id)` runs an approved call on the host's side). */
  readonly approvals: RuntimeApprovals;
  /**
   * Undoes an operation whose effect landed but failed its postcondition: runs the compensating call its
   * envelope names, gated like any call, under an operation id derived from (tenant, operationId).
   */
  compensate(ctx: TrustedContext, operationId: string, options?: CompensateOptions): Promise<Envelope>;
  /** Sets the run's durable interrupt flag and aborts its handlers in flight in this process. */
  interrupt(run: { readonly tenant: string; readonly run_id: string }, reason: string): Promise<void>;
  /** Clears the run's interrupt flag (unrelated to `approvals.resume`, which runs an approved call). */
  resume(run: { readonly tenant: string; readonly run_id: string }): Promise<void>;
  /** Version of the policy in force now. */
  readonly policyVersion: string;
  /** The tool manifest this runtime gates. */
  readonly manifest: Manifest;
  /** The tools to offer this principal, in name order: those the policy does not deny before any argument (`list-tools.ts`). */
  listTools(ctx: TrustedContext): Promise<ToolManifestEntry[]>;
  /**
   * Prepares and authorizes a call without invoking it: null when the gate would let it
   * through now, else the envelope the call would get (approval_required creates the pending approval).
   */
  preflight(ctx: TrustedContext, request: CallRequest): Promise<Envelope | null>;
  /** Version of the shadow policy, or null when none runs. */
  readonly shadowPolicyVersion: string | null;
  /** Swaps the enforced policy atomically: calls already started finish under the one they started with. */
  setPolicy(engine: PolicyEngine): void;
  /** Sets (or with null removes) the candidate evaluated next to the enforced policy. */
  setShadowPolicy(engine: PolicyEngine | null): void;
  /** Reloads a policy.wasm or bundle when the file changes; a file that does not load keeps the old policy. */
  watchPolicy(path: string, options?: Partial<WatchPolicyOptions>): PolicyWatcher;
}

/** The handler's ctx.context: the facts the policy decided with (a deferred call resolves them when it decides). */
function withContext(call: PreparedCall, context: JsonObject | undefined): PreparedCall {
  if (context === undefined || call.tool.context === undefined) return call;
  return { ...call, ctx: { ...call.ctx, context } as PreparedCall["ctx"] };
}

type EntryOf = (
  decisionId: string,
  ctx: TrustedContext,
  req: CallRequest,
  prepared: PreparedCall | null,
  note: LogNote,
  env: Envelope,
  error: HandlerErrorDetail | null,
  span: SpanIds | null,
) => DecisionLogEntry;

/** A recorded call's decision-log entry, built when its outcome is recorded, with its note as it is then. */
class CallAudit implements OutcomeAudit {
  committed = false;
  constructor(
    readonly entryOf: EntryOf,
    readonly decisionId: string,
    readonly ctx: TrustedContext,
    readonly req: CallRequest,
    readonly call: PreparedCall,
    public note: LogNote,
    readonly slot: ThrownErrorSlot,
    readonly span: SpanIds | null,
  ) {}

  entry(envelope: Envelope): DecisionLogEntry {
    return this.entryOf(this.decisionId, this.ctx, this.req, this.call, this.note, envelope, this.slot.thrown, this.span);
  }
}

/**
 * The answer to an exception inside the gate: the envelope's own text, never the exception's
 * (a driver's message may quote the model's input or the store's internals); the host gets the
 * error through onError.
 */
const internalError = (): Envelope =>
  terminal("permanent_error", "internal error in the gate; the error was reported to the host. Whether the call had an effect is unknown: retry with the same operation_id to learn its outcome");

export class RuntimeConfigError extends Error {
  override name = "RuntimeConfigError";
}
export const isRuntimeConfigError = (e: unknown): e is RuntimeConfigError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "RuntimeConfigError";

export function createRuntime<
  H extends HandlerMap<H>,
  R extends ReconcilerMap<R> = Record<never, never>,
  C extends ContextResolverMap<C> = Record<never, never>,
>(opts: RuntimeOptions<H, R, C>): Runtime {
  // The maps are typed per tool for the host; inside, arguments are validated JSON objects.
  const handlers = opts.handlers as unknown as Readonly<Record<string, LooseHandler>>;
  const reconcilers = (opts.reconcilers ?? {}) as unknown as Readonly<Record<string, LooseReconciler | undefined>>;
  const missing: string[] = [];
  for (const name of Object.keys(opts.manifest.tools)) {
    if (typeof handlers[name] !== "function") missing.push(`handler for ${name}`);
    if (opts.validators[name]?.input === undefined || opts.validators[name]?.output === undefined) missing.push(`validators for ${name}`);
  }
  const contextResolvers = (opts.context ?? {}) as unknown as LooseContextResolvers;
  missing.push(...missingContext(opts.manifest.tools, contextResolvers, opts.validators));
  if (missing.length > 0) throw new RuntimeConfigError(`createRuntime: missing ${missing.join(", ")}`);
  if (opts.policyBudget !== undefined && !isValidPolicyBudget(opts.policyBudget)) throw new RuntimeConfigError(policyBudgetProblem("createRuntime", opts.policyBudget));
  const leaseMarginMs = opts.leaseMarginMs ?? defaultLeaseMarginMs;
  const labels = decisionLabels(opts.labels);

  const shared: SharedDeps = {
    manifest: opts.manifest,
    validators: opts.validators,
    handlers,
    reconcilers,
    store: opts.store,
    clock: opts.clock ?? systemClock,
    leaseMarginMs,
    maxArgsBytes: opts.maxArgsBytes ?? defaultMaxArgsBytes,
    ownerId: opts.ownerId ?? `rt_${randomUUID()}`,
    pollIntervalMs: opts.pollIntervalMs ?? 10,
    inProgressWaitMs: opts.inProgressWaitMs ?? 2_000,
    inFlight: new Map(),
    flights: new Map(),
    limitTurns: new Map(),
    onError: opts.onError ?? ((err: unknown) => void process.stderr.write(`toolgate runtime: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)),
    telemetry: new Telemetry(opts.telemetry ?? {}),
    contextResolvers,
    ...(opts.policyBudget === undefined ? {} : { policyBudget: opts.policyBudget }),
  };
  const holder = new PolicyHolder(shared, opts.policy, opts.shadowPolicy === undefined ? null : checkEngine(opts.shadowPolicy, "createRuntime shadowPolicy"));
  // The store learns the policy this gate runs before its first answer and on every swap.
  const publisher = new PolicyPublisher({ store: shared.store, entrypoint: shared.manifest.policy.entrypoint, owner: shared.ownerId, clock: shared.clock, onError: shared.onError });
  const retentionMs = opts.decisionLogRetentionMs ?? defaultDecisionLogRetentionMs;
  const telemetry = shared.telemetry;
  // Approvals this process announced as pending, so the pending gauge counts each once.
  const pending = new Set<string>();

  const toolOf = (deps: RuntimeDeps, req: CallRequest, prepared: PreparedCall | null) => {
    const toolName = loggableToolName(req.tool);
    return prepared?.tool ?? (Object.prototype.hasOwnProperty.call(deps.manifest.tools, toolName) ? deps.manifest.tools[toolName] : undefined);
  };
  const entryOf: EntryOf = (decisionId, ctx, req, prepared, note, env, error, span) => {
    const deps = holder.snapshot;
    return decisionEntry({
      decision_id: decisionId,
      at_ms: deps.clock.now(),
      ctx,
      request: req,
      call: prepared,
      tool: toolOf(deps, req, prepared),
      note,
      envelope: env,
      path: deps.manifest.policy.entrypoint,
      retention_ms: retentionMs,
      error,
      labels,
      span,
    });
  };

  /**
   * Writes the call's decision-log entry (unless it was committed with the call's outcome);
   * an answer given before the policy is logged too.
   */
  const log = async (
    ctx: TrustedContext,
    req: CallRequest,
    prepared: PreparedCall | null,
    note: LogNote,
    env: Envelope,
    decisionId: string = newDecisionId(),
    committed = false,
    error: HandlerErrorDetail | null = null,
    span: SpanIds | null = null,
  ) => {
    const deps = holder.snapshot;
    const tool = toolOf(deps, req, prepared);
    if (!committed) {
      try {
        await deps.store.appendDecision(entryOf(decisionId, ctx, req, prepared, note, env, error, span));
      } catch (err) {
        deps.onError(err); // the audit write failing must not turn a recorded effect into an error
      }
    }
    if (env.outcome === "terminal_failure" && env.reason === "approval_required" && env.approval_id !== undefined && !pending.has(env.approval_id)) {
      if (pending.size >= 10_000) pending.clear();
      pending.add(env.approval_id);
      telemetry.approvalsPending(1);
    }
    return { decisionId, tool };
  };

  const call = async (ctx: TrustedContext, req: CallRequest, options?: CallOptions): Promise<Envelope> => {
    // One policy for the whole call, from authorize to commit, even if it is swapped meanwhile.
    const deps = holder.snapshot;
    const published = publisher.publish(deps.policy);
    const toolName = loggableToolName(req.tool);
    const trace = telemetry.startCall(toolName, options?.traceparent);
    let prepared: PreparedCall | null = null;
    let note: LogNote = { decision: "not_evaluated", reason: null, policy_version: null };
    let env: Envelope;
    const decisionId = newDecisionId();
    // A thrown handler error's detail, for this call's entry and span (the model gets its id only).
    const slot: ThrownErrorSlot = { decision_id: decisionId, thrown: null };
    let committed = false;
    try {
      const p = trace.inert ? prepare(deps, ctx, req) : await trace.phase("prepare", async () => prepare(deps, ctx, req));
      if (p.kind === "answer") {
        env = p.envelope;
        note = p.note;
      } else {
        prepared = p.value;
        const call = prepared;
        // A call likely to be allowed claims its operation in authorize's store round trip; the
        // claim goes to invoke, or back to the store if the call ends before its handler runs.
        const held = HeldClaim.open(deps, call);
        const limits = callLimits(deps.manifest, call);
        // The call's turn on its limit keys, from the figures the policy reads to its claim.
        const turn = limits.length === 0 || deps.limitTurns === undefined ? null : await takeTurns(deps.limitTurns, call.ctx.tenant, limits);
        try {
          const a = trace.inert ? await authorize(deps, call, held) : await trace.phase("authorize", () => authorize(deps, call, held));
          if (a.kind === "answer") {
            env = a.envelope;
            note = a.note;
          } else {
            note = a.value;
            const authorized = a.value;
            // The entry is built when the outcome is recorded, with the note as it is then (a deferred call decides late).
            // A call without operation id records no outcome, so it has no entry to commit with one.
            const audit = call.operation_id === null ? undefined : new CallAudit(entryOf, decisionId, ctx, req, call, note, slot, trace.spanIds);
            // Only a deferred call (reconcile first) asks the policy late.
            const decideNow = async () => {
              const step = await decide(deps, call, deps.clock.now());
              note = step.kind === "answer" ? step.note : step.value;
              if (audit !== undefined) audit.note = note;
              return step;
            };
            const late = authorized.deferred ? decideNow : null;
            // A call with limits is decided again when its figures moved before its claim.
            const again = turn === null ? null : { reauthorize: decideNow, claimed: turn };
            // A deferred call has not decided yet: its handler, if it runs, sees facts resolved now.
            const facts = authorized.deferred && call.tool.context !== undefined ? await resolveContext(deps, call) : null;
            const context = authorized.context ?? (facts?.ok === true ? facts.context : undefined);
            const target = withContext(call, context);
            env = trace.inert
              ? await invoke(deps, target, authorized, late, slot, audit, held, again)
              : await trace.phase("invoke", () => invoke(deps, target, authorized, late, slot, audit, held, again));
            committed = audit?.committed === true;
            // Committed with the outcome, the approval's consumption was decided there too.
            if (!committed && call.approval_id !== null) await consumeAfterInvoke(deps, call);
          }
        } finally {
          turn?.();
          // An answer in authorize, or a throw before invoke took the claim: it goes back (nothing once invoke settled).
          if (held !== null) await held.release(deps);
        }
      }
      if (prepared !== null && env.outcome === "terminal_failure" && env.reason === "approval_required") {
        env = await pausePendingCall(deps.store, prepared, env, note.reason, deps.clock.now(), opts.onPendingApproval, deps.onError);
      }
    } catch (err) {
      deps.onError(err);
      env = internalError();
    }
    const { tool } = await log(ctx, req, prepared, note, env, decisionId, committed, slot.thrown, trace.spanIds);
    if (published !== null) await published;
    if (trace.inert) {
      trace.end(null);
      return env;
    }
    trace.end({
      tool: tool?.name ?? toolName,
      effect: tool?.effect ?? null,
      operation_id: prepared?.operation_id ?? null,
      decision_id: decisionId,
      decision: note.decision,
      reason: note.reason,
      outcome: env.outcome,
      outcome_reason: env.outcome === "success" ? null : env.reason,
      policy_version: note.policy_version,
      eval_ns: note.evaluation?.eval_ns ?? null,
      shadow_disagrees: note.evaluation?.shadow?.disagrees ?? null,
      error: slot.thrown,
    });
    return env;
  };

  const approvals = createApprovals(holder.live);
  const runtime: Runtime = {
    call,
    compensate: (ctx, operationId, options) => compensate(holder.snapshot, call, ctx, operationId, options),
    approvals: {
      ...approvals,
      async decide(approvalId, req, approver) {
        const out = await approvals.decide(approvalId, req, approver);
        if (out.ok && pending.delete(approvalId)) telemetry.approvalsPending(-1);
        return out;
      },
      resume: (id) => resumeApproval({ store: shared.store, clock: shared.clock, call }, id),
    },
    async interrupt(run, reason) {
      await shared.store.setInterrupt({ tenant: run.tenant, run_id: run.run_id, reason, at_ms: shared.clock.now() });
      abortRun(holder.live, run.tenant, run.run_id, reason);
    },
    async resume(run) {
      await shared.store.clearInterrupt(run.tenant, run.run_id);
    },
    get policyVersion() {
      return holder.snapshot.policy.version;
    },
    get shadowPolicyVersion() {
      return holder.snapshot.shadowPolicy?.version ?? null;
    },
    setPolicy(engine) {
      holder.setPolicy(engine);
      void publisher.publish(holder.snapshot.policy);
    },
    setShadowPolicy(engine) {
      holder.setShadowPolicy(engine);
    },
    watchPolicy(path, options = {}) {
      return watchPolicyFile(runtime, path, { entrypoint: shared.manifest.policy.entrypoint, ...options });
    },
    manifest: shared.manifest,
    listTools: (ctx) => listTools(holder.snapshot, ctx),
    async preflight(ctx, req) {
      const deps = holder.snapshot;
      const published = publisher.publish(deps.policy);
      try {
        const r = await preflight(deps, ctx, req);
        // An answer is logged like a call's: it may have created a pending approval.
        if (r.envelope !== null && r.note !== null) await log(ctx, req, r.prepared, r.note, r.envelope);
        if (published !== null) await published;
        return r.envelope;
      } catch (err) {
        deps.onError(err);
        return internalError();
      }
    },
  };
  return runtime;
}
