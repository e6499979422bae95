/**
 * The claim and record-outcome rules as pure functions of (current record, request).
 * A store runs them inside its own atomic section (SQLite: an IMMEDIATE transaction;
 * PostgreSQL: the row locked with SELECT ... FOR UPDATE after INSERT ... ON CONFLICT
 * DO NOTHING), so every backend decides identically.
 */
import type { ApprovalRecord, ClaimRequest, ClaimResult, InterruptRecord, LimitFigures, OperationRecord, RecordOutcomeRequest, RecordOutcomeResult, RefundAttemptRequest } from "./store.js";

/** What the store must do for a claim: write `write` (insert or update), then answer `result`. */
export interface ClaimPlan {
  readonly write: OperationRecord | null;
  readonly result: ClaimResult;
}

/**
 * Past its retention AND not held: a record whose lease is live is never expired, or a
 * short retention would let a second owner claim while the first handler still runs.
 */
export const isExpired = (rec: OperationRecord, nowMs: number): boolean => rec.expires_at_ms <= nowMs && rec.lease_expires_at_ms <= nowMs;

/**
 * Whether taking over a record in `previous` status counts an attempt of the retry budget,
 * which counts the handler invocations that may have applied. After a released retryable
 * answer the handler runs again: one more. After `in_progress` (its owner crashed) or
 * `unknown` (a timeout) the runtime first reconciles, which runs no effect; if that finds the
 * earlier attempt not applied, the handler's next run takes that attempt's place. So a
 * retry that crashes while reconciling uses up nothing.
 */
export const countsAttempt = (previous: OperationRecord["status"]): boolean => previous === "retryable";

export function planClaim(current: OperationRecord | null, req: ClaimRequest): ClaimPlan {
  const live = current !== null && !isExpired(current, req.now_ms) ? current : null;
  if (live === null) {
    // Fresh (or a record past retention): start over, but keep the fence token
    // monotonic for the key so a stale holder of the old record stays fenced out.
    const record: OperationRecord = {
      tenant: req.tenant,
      operation_id: req.operation_id,
      tool: req.tool,
      fingerprint: req.fingerprint,
      status: "in_progress",
      fence_token: (current?.fence_token ?? 0) + 1,
      lease_owner: req.owner,
      lease_expires_at_ms: req.now_ms + req.lease_ms,
      attempts: 1,
      envelope: null,
      created_at_ms: req.now_ms,
      updated_at_ms: req.now_ms,
      expires_at_ms: req.now_ms + req.retention_ms,
    };
    return { write: record, result: { kind: "claimed", record, previous: null } };
  }
  if (live.fingerprint !== req.fingerprint || live.tool !== req.tool) {
    return { write: null, result: { kind: "conflict", record: live } };
  }
  if (live.status === "final") return { write: null, result: { kind: "final", record: live } };
  // Held: a running attempt, or one that timed out and may still land (`unknown` keeping its lease).
  if (live.lease_expires_at_ms > req.now_ms) {
    return { write: null, result: { kind: "busy", record: live } };
  }
  const record: OperationRecord = {
    ...live,
    status: "in_progress",
    fence_token: live.fence_token + 1,
    lease_owner: req.owner,
    lease_expires_at_ms: req.now_ms + req.lease_ms,
    attempts: countsAttempt(live.status) ? live.attempts + 1 : live.attempts,
    updated_at_ms: req.now_ms,
  };
  return { write: record, result: { kind: "claimed", record, previous: live.status } };
}

/**
 * The columns `planRecord` and `planRefund` change in the record they are given (a store may
 * write only these; test/store/claim-columns.test.ts holds the plans to them).
 */
export const recordChangedColumns = ["status", "envelope", "lease_expires_at_ms", "updated_at_ms"] as const satisfies readonly (keyof OperationRecord)[];
export const refundChangedColumns = ["attempts", "updated_at_ms"] as const satisfies readonly (keyof OperationRecord)[];

export interface RecordPlan {
  readonly write: OperationRecord | null;
  readonly result: RecordOutcomeResult;
}

export function planRecord(current: OperationRecord | null, req: RecordOutcomeRequest): RecordPlan {
  if (current === null) return { write: null, result: { recorded: false, why: "missing", record: null } };
  if (current.status === "final") return { write: null, result: { recorded: false, why: "already_final", record: current } };
  if (current.fence_token !== req.fence_token) {
    return { write: null, result: { recorded: false, why: "stale_fence", record: current } };
  }
  const record: OperationRecord = {
    ...current,
    status: req.status,
    envelope: req.envelope,
    // Releasing the lease lets a retry claim at once; a final record keeps no lease.
    lease_expires_at_ms: req.keep_lease === true && req.status === "unknown" ? current.lease_expires_at_ms : Math.min(current.lease_expires_at_ms, req.now_ms),
    updated_at_ms: req.now_ms,
  };
  return { write: record, result: { recorded: true, record } };
}

/** A refund applies only to the current holder of the claim, and never below one attempt. */
export function planRefund(current: OperationRecord | null, req: RefundAttemptRequest): OperationRecord | null {
  if (current === null || current.fence_token !== req.fence_token || current.status !== "in_progress" || current.attempts <= 1) return null;
  return { ...current, attempts: current.attempts - 1, updated_at_ms: req.now_ms };
}

/** What the claim guard sees, read in the claim's atomic section. */
export interface GuardState {
  readonly interrupt: Pick<InterruptRecord, "reason"> | null;
  readonly approval: Pick<ApprovalRecord, "tenant" | "status" | "expires_at_ms" | "requested_by" | "run_id"> | null;
}

/** The refusal for a failed guard, or null when the claim may proceed. */
export function checkGuard(req: ClaimRequest, state: GuardState): Extract<ClaimResult, { kind: "refused" }> | null {
  if (req.guard === undefined) return null;
  const refuse = (why: "interrupted" | "approval_invalid", detail: string) => ({ kind: "refused", why, detail, record: null }) as const;
  if (state.interrupt !== null) return refuse("interrupted", state.interrupt.reason);
  if (req.guard.approval_id === null) return null;
  const a = state.approval;
  if (a === null || a.tenant !== req.tenant) return refuse("approval_invalid", "missing");
  if (a.status !== "approved") return refuse("approval_invalid", a.status);
  if (a.expires_at_ms <= req.now_ms) return refuse("approval_invalid", "expired");
  if (req.guard.requested_by !== undefined && (a.requested_by !== req.guard.requested_by || a.run_id !== req.guard.run_id)) return refuse("approval_invalid", "another principal's");
  return null;
}

/** The limits' answer for a claim, given the figures read in its atomic section; null: the claim may proceed. */
export function checkLimits(req: ClaimRequest, figures: Readonly<Record<string, LimitFigures>>): Extract<ClaimResult, { kind: "refused" }> | null {
  for (const limit of req.limits ?? []) {
    const now = figures[limit.name] ?? { count: 0, sum: 0 };
    if (limit.seen !== null && (limit.seen.count !== now.count || limit.seen.sum !== now.sum)) {
      return { kind: "refused", why: "limits_moved", detail: limit.name, record: null, figures };
    }
  }
  for (const limit of req.limits ?? []) {
    const now = figures[limit.name] ?? { count: 0, sum: 0 };
    if ((limit.max_count !== null && now.count + 1 > limit.max_count) || (limit.max_sum !== null && now.sum + limit.amount > limit.max_sum)) {
      return { kind: "refused", why: "limit_exceeded", detail: limit.name, record: null, figures };
    }
  }
  return null;
}
