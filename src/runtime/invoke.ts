/**
 * invoke: claim the operation (lease + fence token; the claim itself checks the
 * interrupt flag and the approval), unless authorize already made the fresh claim
 * (claim-first, held-claim.ts), reconcile first when an earlier attempt's outcome
 * is unknown, run the handler with a timeout, classify its answer, and record the
 * envelope under the fence token exactly once, with the call's decision-log entry.
 * Enters: an authorized PreparedCall. Leaves: the envelope.
 */
import type { DecisionLogEntry, OperationRecord, OperationStatus } from "../store/store.js";
import { classify } from "./classify.js";
import type { Classified } from "./classify.js";
import type { JsonObject } from "../manifest.js";
import { retryable, terminal } from "./envelope.js";
import type { Envelope } from "./envelope.js";
import { isInterruptedError, runHandler } from "./handler-run.js";
import type { RunResult } from "./handler-run.js";
import { claimGuard, flightKey, leaseOf } from "./held-claim.js";
import type { HeldClaim } from "./held-claim.js";
import { conflict, replay } from "./idempotency.js";
import { answerThrown, safeFailureText } from "./thrown-outcome.js";
import { errorIdOf, thrownDetail } from "./thrown-errors.js";
import type { ThrownErrorSlot } from "./thrown-errors.js";
import { callLimits, limitClaims, limitExceeded } from "./limit-figures.js";
import type { Authorized, Step } from "./phase.js";
import type { PreparedCall, RuntimeDeps } from "./types.js";
import { storableEnvelope } from "../call-data/unstorable-text.js";

const opIdOf = (call: PreparedCall): { operation_id?: string } => (call.operation_id === null ? {} : { operation_id: call.operation_id });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A follower's copy of a leader's answer. */
const asReplay = (e: Envelope): Envelope => (e.outcome === "retryable_failure" ? e : { ...e, replayed: true });

/** For a deferred authorization: asks the policy now (the runtime also updates its decision-log note). */
export type LateAuthorizer = () => Promise<Step<Authorized>>;

/** The approval may have been revoked (by another worker, too) since the policy saw it. */
async function approvalStillValid(deps: RuntimeDeps, call: PreparedCall, auth: Authorized): Promise<Envelope | null> {
  if (auth.approval_id === null) return null;
  const approval = await deps.store.getApproval(auth.approval_id);
  if (approval !== null && approval.status === "approved" && approval.expires_at_ms > deps.clock.now()) return null;
  const why = approval === null ? "missing" : approval.status === "approved" ? "expired" : approval.status;
  return terminal("policy_denied", `approval ${auth.approval_id} is no longer valid (${why}); not invoking ${call.tool.name}`, opIdOf(call));
}

/**
 * The call's decision-log entry, committed in the same transaction as its outcome together
 * with the consumption of the approval it presented; `committed` tells the caller that it
 * must neither log nor consume again.
 */
export interface OutcomeAudit {
  entry(envelope: Envelope): DecisionLogEntry;
  committed: boolean;
}

/** How many times a call with limits is authorized again because its figures moved before it is answered retryable. */
export const maxLimitRounds = 256;

/** A call with limits: `reauthorize` asks the policy again on moved figures; `claimed` ends the call's turn on its keys (limit-lock.ts). */
export interface LimitedCall {
  readonly reauthorize: LateAuthorizer;
  readonly claimed: () => void;
}

/**
 * `authorizeLate` is needed only for a deferred authorization (`auth.deferred`). `held`: the call
 * leads its key's flight since authorize's claim-first, and may hold the fresh claim to run under.
 * `slot`: where a thrown error's logged detail is left, under the call's decision id (its error id).
 * `limited`: for a call with limits, how to ask the policy again when the figures moved before
 * the claim (without it such a claim is answered retryable), and the end of its turn.
 */
export async function invoke(
  deps: RuntimeDeps,
  call: PreparedCall,
  auth: Authorized,
  authorizeLate: LateAuthorizer | null,
  slot: ThrownErrorSlot,
  audit?: OutcomeAudit,
  held?: HeldClaim | null,
  limited: LimitedCall | null = null,
): Promise<Envelope> {
  const opId = call.operation_id;
  if (opId === null) {
    // Nothing is claimed, so this is the check right before the handler (a read's one read of the flag).
    const interrupt = await deps.store.getInterrupt(call.ctx.tenant, call.ctx.run_id);
    if (interrupt !== null) return terminal("interrupted", `run ${call.ctx.run_id} was interrupted before the effect: ${interrupt.reason}`);
    const revoked = auth.approval_id === null ? null : await approvalStillValid(deps, call, auth);
    if (revoked !== null) return revoked;
    return await runUnrecorded(deps, call, slot);
  }
  if (auth.deferred && authorizeLate === null) throw new Error("invoke: a deferred authorization needs its late authorizer");
  const late = auth.deferred ? authorizeLate : null;
  // A claimed call's interrupt and approval checks are part of the claim (its guard), atomically.
  if (held !== undefined && held !== null) {
    try {
      const env = await claimAndRun(deps, call, opId, auth, late, slot, audit, await held.take(deps), limited);
      held.settle(deps, { env });
      return env;
    } catch (error) {
      held.settle(deps, { error });
      throw error;
    }
  }
  const key = flightKey(call.ctx.tenant, opId);
  for (let flight = deps.flights.get(key); flight !== undefined; flight = deps.flights.get(key)) {
    if (flight.fingerprint !== call.operation_fingerprint || flight.tool !== call.tool.name) {
      return terminal("idempotency_conflict", `operation_id ${opId} is in use by a different call`, { operation_id: opId });
    }
    const led = await flight.done;
    if (led !== null) return asReplay(led);
    // The leader gave its fresh claim back without running: claim here (or join the next flight).
  }
  const done = claimAndRun(deps, call, opId, auth, late, slot, audit, null, limited);
  const flight = { tool: call.tool.name, fingerprint: call.operation_fingerprint, done };
  deps.flights.set(key, flight);
  try {
    return await done;
  } finally {
    if (deps.flights.get(key) === flight) deps.flights.delete(key);
  }
}

/** Reads called without an operation id: nothing to claim or record. */
async function runUnrecorded(deps: RuntimeDeps, call: PreparedCall, slot: ThrownErrorSlot): Promise<Envelope> {
  const r = await runHandler(deps, call.ctx, { tool: call.tool.name, operation_id: null, fence_token: null }, call.tool.timeout_ms, deps.handlers[call.tool.name]!, call.args);
  if (r.kind === "timeout") {
    return retryable("timeout", `${call.tool.name} did not answer within ${call.tool.timeout_ms} ms`, call.tool.retry.backoff.initial_ms);
  }
  return settle(deps, call, r, 1, slot).envelope;
}

async function claimAndRun(
  deps: RuntimeDeps,
  call: PreparedCall,
  opId: string,
  authorized: Authorized,
  authorizeLate: LateAuthorizer | null,
  slot: ThrownErrorSlot,
  audit: OutcomeAudit | undefined,
  fresh: OperationRecord | null,
  limited: LimitedCall | null,
): Promise<Envelope> {
  // The fresh claim authorize made (claim-first) is this call's claim; without one, claim now.
  if (fresh !== null) {
    // Claimed with its figures (claim-first): the next call of the key in this process may read them.
    limited?.claimed();
    return await runClaimed(deps, call, fresh, null, authorizeLate, slot, audit);
  }
  const leaseMs = leaseOf(deps, call);
  // Real-time bound on waiting for another owner, independent of the (maybe fake) clock.
  const giveUpAt = Date.now() + deps.inProgressWaitMs;
  const limits = callLimits(deps.manifest, call);
  let auth = authorized;
  let limitRounds = 0;
  for (;;) {
    const approvalId = auth.approval_id;
    const claim = await deps.store.claimOperation({
      tenant: call.ctx.tenant,
      operation_id: opId,
      tool: call.tool.name,
      fingerprint: call.operation_fingerprint,
      owner: deps.ownerId,
      now_ms: deps.clock.now(),
      lease_ms: leaseMs,
      retention_ms: call.tool.retention_ms,
      // The store checks these in the claim itself: a revoke or interrupt committed at any
      // time before the claim stops the effect.
      guard: claimGuard(call, approvalId),
      // The figures the policy decided on must still hold: the store re-reads them in the claim.
      ...(limits.length === 0 ? {} : { limits: limitClaims(limits, auth.deferred ? undefined : auth.limits) }),
    });
    // Claimed or answered: the next call of the key in this process may read its figures.
    if (claim.kind !== "refused" || claim.why !== "limits_moved") limited?.claimed();
    switch (claim.kind) {
      case "refused":
        if (claim.why === "limit_exceeded") return limitExceeded(call, limits, claim.detail, claim.figures);
        if (claim.why === "limits_moved") {
          // Another call of the key was claimed or settled since the policy decided: decide again on the new figures.
          if (limited === null || ++limitRounds > maxLimitRounds) {
            limited?.claimed();
            return retryable("retryable_error", `the figures of limit ${claim.detail} kept changing while ${call.tool.name} was authorized; nothing ran`, 50, { operation_id: opId });
          }
          const again = await limited.reauthorize();
          if (again.kind === "answer") return again.envelope;
          auth = again.value;
          continue;
        }
        return claim.why === "interrupted"
          ? terminal("interrupted", `run ${call.ctx.run_id} was interrupted before the effect: ${claim.detail}`, { operation_id: opId })
          : terminal("policy_denied", `approval ${approvalId ?? ""} is no longer valid (${claim.detail}); not invoking ${call.tool.name}`, { operation_id: opId });
      case "conflict":
        return conflict(opId, claim.record);
      case "final":
        return replay(claim.record);
      case "claimed":
        return await runClaimed(deps, call, claim.record, claim.previous, authorizeLate, slot, audit);
      case "busy": {
        // Another owner holds the lease: wait (bounded) for its outcome, then claim again.
        const waited = await waitWhileBusy(deps, call.ctx.tenant, opId, giveUpAt);
        if (waited !== null) {
          const retryAfter = Math.max(1, waited.lease_expires_at_ms - deps.clock.now());
          return retryable("retryable_error", `operation ${opId} is still running elsewhere`, retryAfter, { operation_id: opId });
        }
      }
    }
  }
}

/**
 * Polls until the record is no longer held (returns null) or the bound passes (returns the
 * busy record). Held means a live lease on a non-final record: a running attempt, or one
 * that timed out and may still land.
 */
async function waitWhileBusy(deps: RuntimeDeps, tenant: string, opId: string, giveUpAt: number): Promise<OperationRecord | null> {
  for (;;) {
    await sleep(deps.pollIntervalMs);
    const rec = await deps.store.getOperation(tenant, opId, deps.clock.now());
    if (rec === null || rec.status === "final" || rec.lease_expires_at_ms <= deps.clock.now()) return null;
    if (Date.now() >= giveUpAt) return rec;
  }
}

async function runClaimed(
  deps: RuntimeDeps,
  call: PreparedCall,
  claimed: OperationRecord,
  previous: OperationStatus | null,
  authorizeLate: LateAuthorizer | null,
  slot: ThrownErrorSlot,
  audit: OutcomeAudit | undefined,
): Promise<Envelope> {
  const { tool } = call;
  const record = claimed;
  const opId = record.operation_id;
  const inv = { tool: tool.name, operation_id: opId, fence_token: record.fence_token };
  // This call's answer: recorded with its decision-log entry and the approval's consumption.
  const with_ = audit === undefined ? undefined : { audit, approval_id: call.approval_id };

  if (previous === "in_progress" || previous === "unknown") {
    // An earlier attempt may have had its effect (timeout or crash): look before acting again.
    const reconcile = deps.reconcilers[tool.name];
    if (reconcile === undefined) {
      return record_(deps, record, "final", terminal("timeout", `outcome of operation ${opId} is unknown and ${tool.name} has no reconcile handler; not invoking again to avoid a double effect`, { operation_id: opId }), false, with_);
    }
    const r = await runHandler(deps, call.ctx, inv, tool.timeout_ms, reconcile, call.args);
    const notApplied = r.kind === "returned" && typeof r.result === "object" && r.result !== null && (r.result as { ok?: unknown }).ok === "not_applied";
    if (!notApplied) {
      if (r.kind !== "returned") {
        // The reconciler's own error text stays in the log, like a handler's.
        let why = "its reconciler did not answer in time";
        if (r.kind === "threw") {
          const errorId = errorIdOf(slot.decision_id);
          slot.thrown = thrownDetail(r.error, errorId, "outcome_unknown", null, tool, call.args);
          why = `its reconciler: ${safeFailureText(tool.name, errorId, null)}`;
        }
        return record_(deps, record, "unknown", retryable("timeout", `could not reconcile operation ${opId}, ${why}`, tool.retry.backoff.initial_ms, { operation_id: opId }), false, with_);
      }
      const c = settle(deps, call, r, record.attempts, slot);
      return record_(deps, record, c.status, c.envelope, false, with_);
    }
    // The earlier attempt provably did not apply its effect: the handler's next run takes its
    // place in the retry budget (this takeover counted no attempt of its own, see countsAttempt).
  }
  if (authorizeLate !== null) {
    // Nothing was applied, so the handler would run again: that is an effect, and needs the policy now.
    const late = await authorizeLate();
    const stop = late.kind === "answer" ? late.envelope : await approvalStillValid(deps, call, late.value);
    // Releasing the claim as retryable lets the caller come back (e.g. with a new approval).
    if (stop !== null) return record_(deps, record, "retryable", stop, false, with_);
  }
  if (record.attempts > tool.retry.max_attempts) {
    const last = record.envelope === null ? "" : `; last answer: ${String((record.envelope as { message?: unknown }).message ?? "")}`;
    return record_(deps, record, "final", terminal("retry_exhausted", `${tool.name} used its ${tool.retry.max_attempts} attempt(s)${last}`, { operation_id: opId }), false, with_);
  }
  const r = await runHandler(deps, call.ctx, inv, tool.timeout_ms, deps.handlers[tool.name]!, call.args);
  if (r.kind === "timeout") {
    if (tool.effect === "read") {
      return record_(deps, record, "retryable", retryable("timeout", `${tool.name} did not answer within ${tool.timeout_ms} ms`, tool.retry.backoff.initial_ms, { operation_id: opId }), false, with_);
    }
    // Outcome unknown, and the handler may still land: the record stays claimed (the lease is
    // kept) until the late answer is recorded or the lease runs out. A retry in that window
    // waits for the late answer; only after the lease expires does a retry reconcile.
    const held = record;
    const unknown = await record_(
      deps,
      record,
      "unknown",
      retryable("timeout", `${tool.name} did not answer within ${tool.timeout_ms} ms; the outcome is unknown until it settles: retry with the same operation_id`, Math.max(1, held.lease_expires_at_ms - deps.clock.now()), { operation_id: opId }),
      true,
      with_,
    );
    void r.late
      .then((late) => {
        // A throw after the abort says nothing about the effect: release the claim as unknown so
        // a retry reconciles at once. A returned answer is the fact, and wins over the unknown.
        if (late.kind === "threw") return record_(deps, held, "unknown", unknown);
        const c = settle(deps, call, { ...late, interrupted: false }, held.attempts, slot);
        return record_(deps, held, c.status, c.envelope);
      })
      .catch(deps.onError);
    return unknown;
  }
  const c = settle(deps, call, r, record.attempts, slot);
  return await record_(deps, record, c.status, c.envelope, false, with_);
}

/** Classifies a handler that returned or threw (not a timeout). */
function settle(
  deps: RuntimeDeps,
  call: PreparedCall,
  r: Exclude<RunResult, { kind: "timeout" }>,
  attempt: number,
  slot: ThrownErrorSlot,
): { status: Exclude<OperationStatus, "in_progress">; envelope: Envelope } {
  if (r.kind === "threw") {
    if (r.interrupted) {
      // The handler stopped on the interrupt; whether its effect happened is unknown. The interrupt's
      // own error carries the operator's reason; anything else the handler threw stays in the log.
      let why: string;
      if (isInterruptedError(r.error)) why = r.error.message;
      else {
        const errorId = errorIdOf(slot.decision_id);
        slot.thrown = thrownDetail(r.error, errorId, "outcome_unknown", null, call.tool, call.args);
        why = `error ${errorId}`;
      }
      return { status: "unknown", envelope: terminal("interrupted", `${call.tool.name} stopped: run interrupted (${why})`, opIdOf(call)) };
    }
    return answerThrown(deps, call, r.error, attempt, slot);
  }
  const validators = deps.validators[call.tool.name];
  if (validators === undefined) throw new Error(`no validators for ${call.tool.name}`);
  const c: Classified = classify(r.result, { tool: call.tool, validators, args: call.args, operation_id: call.operation_id, attempt, tenant: call.ctx.tenant });
  return c;
}

/**
 * Records under the claim's fence token; if someone else recorded or took over, their final answer wins.
 * With `with`, the call's decision-log entry and the approval's consumption commit with the outcome.
 */
async function record_(
  deps: RuntimeDeps,
  claimed: OperationRecord,
  status: Exclude<OperationStatus, "in_progress">,
  envelope: Envelope,
  keepLease = false,
  with_?: { readonly audit: OutcomeAudit; readonly approval_id: string | null },
): Promise<Envelope> {
  // Text a store cannot hold (a NUL in a handler's message) must not leave the answer unrecorded.
  envelope = storableEnvelope(envelope);
  const res = await deps.store.recordOutcome({
    tenant: claimed.tenant,
    operation_id: claimed.operation_id,
    fence_token: claimed.fence_token,
    status,
    // The store serialises the envelope when it writes it (what a copy through JSON would give).
    envelope: envelope as unknown as JsonObject,
    now_ms: deps.clock.now(),
    ...(keepLease ? { keep_lease: true } : null),
    ...(with_ === undefined ? null : { decision: with_.audit.entry(envelope) }),
    ...(with_ === undefined || with_.approval_id === null ? null : { consume_approval_id: with_.approval_id }),
  });
  if (with_ !== undefined) with_.audit.committed = res.recorded;
  if (res.recorded) return envelope;
  if (res.record !== null && res.record.status === "final") return replay(res.record);
  return envelope;
}
