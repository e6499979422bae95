/**
 * Claim-first: a call expected to be allowed (it has an operation id and presents an approval,
 * or it is a read) claims its operation in authorize's one store round trip
 * (`Store.claimFirst`, the fresh guarded claim with the call-state read), and invoke runs under
 * that claim instead of claiming again: an approved write costs one round trip less.
 *
 * A HeldClaim is that claim while the call owns it: it leads the key's in-process flight from
 * before the claim (so concurrent calls of the key in this process join it, as they join a
 * running invoke), hands the fresh record to invoke, and gives it back (`Store.releaseClaim`)
 * when the call is answered before its handler runs, so the key is left as if never claimed.
 * Enters: a prepared call. Leaves: the call state for authorize, the fresh claim for invoke.
 */
import type { CallState, ClaimGuard, OperationRecord } from "../store/store.js";
import type { Envelope } from "./envelope.js";
import { callLimits, limitClaims } from "./limit-figures.js";
import type { Figures } from "./limit-figures.js";
import { runKey } from "./handler-run.js";
import type { Abortable, PreparedCall, RuntimeDeps } from "./types.js";

/** The key of a call's in-process flight (`RuntimeDeps.flights`). */
export const flightKey = (tenant: string, operationId: string): string => `${tenant}\u0000${operationId}`;

/**
 * What the store checks atomically with a claim: the run's interrupt flag and the approval relied
 * on; an approval bound to its principal (tools.yaml approval.binding, default) must also be this
 * user's in this run, so another principal's call never holds a claim under it, even briefly.
 */
export function claimGuard(call: PreparedCall, approvalId: string | null): ClaimGuard {
  const bound = approvalId !== null && (call.tool.approval?.binding ?? "principal") === "principal";
  return bound ? { run_id: call.ctx.run_id, approval_id: approvalId, requested_by: call.ctx.user } : { run_id: call.ctx.run_id, approval_id: approvalId };
}

/** The lease of a claim: the tool's timeout plus the runtime's margin (see lease.ts). */
export const leaseOf = (deps: RuntimeDeps, call: PreparedCall): number => call.tool.timeout_ms + deps.leaseMarginMs;

/**
 * How much of the lease authorize (context facts, policy) may use before the handler starts;
 * past it the claim is given back and made again, so the handler starts with at most this less
 * than the lease of a claim made right before it: a tenth of the margin, at most 100 ms.
 */
export const claimFirstSlackMs = (deps: RuntimeDeps): number => Math.min(100, deps.leaseMarginMs / 10);

/**
 * Worth claiming first: the call is likely allowed, so the claim is rarely given back (a write without
 * approval usually gets approval_required). A call with limits claims first with its figures: the
 * claim is made only when it fits every cap, and the policy decides on the figures read in it.
 */
export const worthClaimingFirst = (call: PreparedCall): boolean =>
  call.operation_id !== null && (call.approval_id !== null || call.tool.effect === "read");

type Flight = RuntimeDeps["flights"] extends Map<string, infer F> ? F : never;

/**
 * While it holds a fresh claim that no handler runs under yet, a HeldClaim is in the run's
 * abortable set (`RuntimeDeps.inFlight`, what `runtime.interrupt` aborts in this process), so an
 * interrupt of the run from this process during authorize is not missed: invoke then claims the
 * usual way, and that claim's guard answers interrupted.
 */
export class HeldClaim implements Abortable {
  readonly #key: string;
  readonly #runKey: string;
  readonly #flight: Flight;
  #record: OperationRecord | null = null;
  #interrupted = false;
  #ended = false;
  readonly #resolve: (env: Envelope | null) => void;
  readonly #reject: (err: unknown) => void;

  private constructor(deps: RuntimeDeps, call: PreparedCall, operationId: string) {
    this.#key = flightKey(call.ctx.tenant, operationId);
    this.#runKey = runKey(call.ctx.tenant, call.ctx.run_id);
    let resolve!: (env: Envelope | null) => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<Envelope | null>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    // Joiners see a failure through their own await; with none, it is not an unhandled rejection.
    done.catch(() => undefined);
    this.#resolve = resolve;
    this.#reject = reject;
    this.#flight = { tool: call.tool.name, fingerprint: call.operation_fingerprint, done };
    deps.flights.set(this.#key, this.#flight);
  }

  /** A HeldClaim leading the key's flight, or null: not worth it, or a call of the key is already in flight here (this call joins it). */
  static open(deps: RuntimeDeps, call: PreparedCall): HeldClaim | null {
    if (!worthClaimingFirst(call) || call.operation_id === null) return null;
    if (deps.flights.has(flightKey(call.ctx.tenant, call.operation_id))) return null;
    return new HeldClaim(deps, call, call.operation_id);
  }

  /**
   * Claims the operation if it has no record (guarded) and, with limits, fits every cap; reads the
   * call state with it, and the limits' figures before this call (`figures`, with limits only).
   */
  async claim(deps: RuntimeDeps, call: PreparedCall, operationId: string, interrupt: boolean, now: number): Promise<CallState & { readonly figures?: Figures }> {
    const limits = callLimits(deps.manifest, call);
    const r = await deps.store.claimFirst({
      tenant: call.ctx.tenant,
      operation_id: operationId,
      tool: call.tool.name,
      fingerprint: call.operation_fingerprint,
      owner: deps.ownerId,
      now_ms: now,
      lease_ms: leaseOf(deps, call),
      retention_ms: call.tool.retention_ms,
      guard: claimGuard(call, call.approval_id),
      interrupt,
      ...(limits.length === 0 ? {} : { limits: limitClaims(limits, undefined) }),
    });
    this.#record = r.claimed?.record ?? null;
    if (this.#record !== null) {
      const set = deps.inFlight.get(this.#runKey) ?? new Set<Abortable>();
      deps.inFlight.set(this.#runKey, set);
      set.add(this);
    }
    return r.figures === undefined ? r.state : { ...r.state, figures: r.figures };
  }

  /** `runtime.interrupt` of this run in this process, while the claim waits for its handler. */
  abort(): void {
    this.#interrupted = true;
  }

  /** Takes the fresh record off this HeldClaim (and this HeldClaim out of the run's abortable set). */
  #takeRecord(deps: RuntimeDeps): OperationRecord | null {
    const record = this.#record;
    this.#record = null;
    const set = deps.inFlight.get(this.#runKey);
    if (set !== undefined && set.delete(this) && set.size === 0) deps.inFlight.delete(this.#runKey);
    return record;
  }

  /**
   * Invoke takes the fresh claim to run the handler under, or null (none was made, or it was
   * given back because authorize used more of its lease than `claimFirstSlackMs`, or because the
   * run was interrupted from this process meanwhile): then invoke claims the usual way. Either
   * way this call still leads the flight.
   */
  async take(deps: RuntimeDeps): Promise<OperationRecord | null> {
    const record = this.#takeRecord(deps);
    if (record === null) return null;
    if (!this.#interrupted && deps.clock.now() - record.created_at_ms <= claimFirstSlackMs(deps)) return record;
    await giveBack(deps, record);
    return null;
  }

  /** Invoke's answer (or failure) for the callers that joined the flight; the key is free again. */
  settle(deps: RuntimeDeps, outcome: { readonly env: Envelope } | { readonly error: unknown }): void {
    if (!this.#ended) {
      this.#ended = true;
      if ("env" in outcome) this.#resolve(outcome.env);
      else this.#reject(outcome.error);
    }
    if (deps.flights.get(this.#key) === this.#flight) deps.flights.delete(this.#key);
  }

  /**
   * The call ends without running under the fresh claim (an answer in authorize, or a throw
   * before invoke took it): gives the claim back, then lets the joined callers claim on their
   * own (their flight answers null). Idempotent, and nothing once invoke settled the flight.
   * A store error goes to onError: the answer stands, and the record's lease runs out.
   */
  async release(deps: RuntimeDeps): Promise<void> {
    const record = this.#takeRecord(deps);
    if (record !== null) await giveBack(deps, record);
    if (!this.#ended) {
      this.#ended = true;
      this.#resolve(null);
    }
    if (deps.flights.get(this.#key) === this.#flight) deps.flights.delete(this.#key);
  }
}

async function giveBack(deps: RuntimeDeps, record: OperationRecord): Promise<void> {
  try {
    await deps.store.releaseClaim(record);
  } catch (err) {
    deps.onError(err);
  }
}
