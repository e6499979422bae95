/**
 * The runtime's durable state, behind one interface so that the embedded SQLite
 * store and a shared PostgreSQL store give the same guarantees:
 *
 * - (tenant, operation_id) is unique and claimed atomically by the store itself,
 *   never by a read-then-write in the caller;
 * - a claim holds a lease; another owner may take over only after the lease has
 *   expired, and every takeover increments the fence token (monotonic per key);
 * - an outcome is recorded only by the holder of the current fence token, and a
 *   final outcome is recorded at most once;
 * - approvals are pending requests plus append-only decision events; a pending
 *   approval is decided at most once;
 * - run interrupt flags and the decision log are plain durable rows.
 *
 * Every method is async so that a networked database fits. Time is always passed
 * in (`now_ms`): stores never read a clock, which keeps expiry testable.
 */
import type { JsonObject, JsonValue } from "../manifest.js";

// ---------------------------------------------------------------- operations

/**
 * Life of an idempotency record:
 * - `in_progress`: claimed, the handler may be running (or its process died);
 * - `retryable`: the last attempt failed before any effect; a retry re-invokes;
 * - `unknown`: the last attempt timed out (the effect may have happened); a retry
 *   must reconcile, never blindly invoke;
 * - `final`: the outcome is recorded; every later call replays it.
 */
export type OperationStatus = "in_progress" | "retryable" | "unknown" | "final";

export interface OperationRecord {
  readonly tenant: string;
  readonly operation_id: string;
  readonly tool: string;
  /** Hex SHA-256 of the call's canonical intent; a different one under the same id is a conflict. */
  readonly fingerprint: string;
  readonly status: OperationStatus;
  /** Starts at 1 on the first claim; +1 on every takeover. */
  readonly fence_token: number;
  readonly lease_owner: string;
  readonly lease_expires_at_ms: number;
  /** Number of claims so far (the first invocation counts as 1). */
  readonly attempts: number;
  /** The recorded response envelope (final, or the last non-final answer). */
  readonly envelope: JsonObject | null;
  readonly created_at_ms: number;
  readonly updated_at_ms: number;
  /** After this the record is gone for every purpose (the tool's retention), unless its lease is still live. */
  readonly expires_at_ms: number;
}

export interface ClaimRequest {
  readonly tenant: string;
  readonly operation_id: string;
  readonly tool: string;
  readonly fingerprint: string;
  /** Identifies the claiming runtime instance (for diagnostics; safety comes from the fence token). */
  readonly owner: string;
  readonly now_ms: number;
  readonly lease_ms: number;
  readonly retention_ms: number;
  /**
   * Checked atomically with the claim: no claim is made while the run is interrupted or
   * while the approval (when not null) is not approved and unexpired for this tenant, so
   * a revoke or an interrupt committed before the claim always stops the effect.
   */
  readonly guard?: ClaimGuard;
  /** Limits checked and counted with the claim (see LimitClaim); absent or empty: none. */
  readonly limits?: readonly LimitClaim[];
}

/** One limit key of a call: the limit's name, the key (JSON of the tenant's `per` values) and its window. */
export interface LimitKey {
  readonly name: string;
  readonly key: string;
  readonly window_ms: number;
}

/** A limit's figures for one key: the calls in the window that succeeded or are claimed and in flight. */
export interface LimitFigures {
  readonly count: number;
  readonly sum: number;
}

/**
 * A limit the claim enforces, atomically with the claim: the figures are read again in the
 * claim's atomic section (the key serialised: SQLite's one writer, PostgreSQL's advisory lock
 * on the key), and the claim is refused `limits_moved` when they differ from `seen` (the figures
 * the policy decided on; null: not compared), or `limit_exceeded` when this call does not fit.
 */
export interface LimitClaim extends LimitKey {
  /** This call's amount (its `sum` argument; 0 for a count-only limit). */
  readonly amount: number;
  readonly max_sum: number | null;
  readonly max_count: number | null;
  readonly seen: LimitFigures | null;
}

export interface LimitFiguresRequest {
  readonly tenant: string;
  /** Not counted (the call's own record, when it has one). */
  readonly operation_id: string | null;
  readonly now_ms: number;
  readonly keys: readonly LimitKey[];
}

export interface RunHistoryRequest {
  readonly tenant: string;
  readonly run_id: string;
  /** At most this many entries: the run's latest. */
  readonly limit: number;
}

/** One earlier call of a run, from its decision-log entry. */
export interface RunHistoryEntry {
  readonly tool: string;
  readonly decision: PolicyDecisionKind;
  readonly outcome: string;
  readonly outcome_reason: string | null;
  readonly at_ms: number;
}

export interface ClaimGuard {
  readonly run_id: string;
  readonly approval_id: string | null;
  /**
   * When set (an approval bound to its principal), the approval must also have been requested by
   * this user in `run_id`: another principal's call never claims under it, even for a moment.
   */
  readonly requested_by?: string;
}

/**
 * - `claimed`: the caller holds the lease with `record.fence_token`. `previous` is
 *   the status before this claim (`null` for a fresh record): `in_progress` (an
 *   expired lease, i.e. a crashed or stuck owner) and `unknown` mean the effect may
 *   already have happened and the caller must reconcile first.
 * - `final`: an outcome is recorded; replay `record.envelope`.
 * - `busy`: another owner holds an unexpired lease.
 * - `conflict`: same (tenant, operation_id), different fingerprint.
 */
export type ClaimResult =
  | { readonly kind: "claimed"; readonly record: OperationRecord; readonly previous: OperationStatus | null }
  | { readonly kind: "final"; readonly record: OperationRecord }
  | { readonly kind: "busy"; readonly record: OperationRecord }
  | { readonly kind: "conflict"; readonly record: OperationRecord }
  /** The guard failed: nothing was written (`record` is null). `detail`: the interrupt's reason, or the approval's status. */
  | { readonly kind: "refused"; readonly why: "interrupted" | "approval_invalid"; readonly detail: string; readonly record: null }
  /**
   * A limit refused the claim (nothing written): `limit_exceeded` (`detail` names the limit), or
   * `limits_moved` (the figures differ from those the policy saw). `figures`: as read in the claim.
   */
  | { readonly kind: "refused"; readonly why: "limit_exceeded" | "limits_moved"; readonly detail: string; readonly record: null; readonly figures: Readonly<Record<string, LimitFigures>> };

export interface RecordOutcomeRequest {
  readonly tenant: string;
  readonly operation_id: string;
  /** Must equal the record's current token, or nothing is written. */
  readonly fence_token: number;
  /** `final` ends the operation; `retryable` and `unknown` release the lease so a retry can claim. */
  readonly status: Exclude<OperationStatus, "in_progress">;
  readonly envelope: JsonObject;
  readonly now_ms: number;
  /**
   * Keep the lease instead of releasing it: the attempt timed out but its handler may
   * still land, so no retry may reconcile before it settles or the lease runs out.
   */
  readonly keep_lease?: boolean;
  /**
   * Single use, in the same transaction: when the outcome is recorded with a status other
   * than `retryable`, this approval (approved, same tenant and operation, not consumed by
   * another operation) is consumed by the operation (as `consumeApproval` does).
   */
  readonly consume_approval_id?: string;
  /**
   * The call's decision-log entry, committed in the same transaction when the outcome is
   * recorded (together with entries still queued for group commit, so the log keeps its
   * order). When nothing is recorded the entry is not written: the caller logs its answer.
   */
  readonly decision?: DecisionLogEntry;
}

/** The attempt under `fence_token` is not counted against the retry budget. */
export interface RefundAttemptRequest {
  readonly tenant: string;
  readonly operation_id: string;
  readonly fence_token: number;
  readonly now_ms: number;
}

/** What authorize needs to know about a call, read together (PostgreSQL: one round trip). */
export interface CallStateRequest {
  readonly tenant: string;
  readonly run_id: string;
  /** null: no record to read (a read without an operation id). */
  readonly operation_id: string | null;
  /** null: no approval presented. */
  readonly approval_id: string | null;
  /** false: the interrupt flag is not read (reads check it once, right before the handler). */
  readonly interrupt: boolean;
  readonly now_ms: number;
}

export interface CallState {
  /** The live record (as `getOperation`), or null. */
  readonly operation: OperationRecord | null;
  readonly interrupt: InterruptRecord | null;
  /** The approval with its latest decision (as `getApproval`), whatever its tenant, or null. */
  readonly approval: ApprovalRecord | null;
}

/**
 * Claim-first: the fresh guarded claim and authorize's call-state read at once (PostgreSQL:
 * one statement; SQLite: one transaction). The guard is always on: the run's interrupt
 * flag, and the approval when `guard.approval_id` is not null. `interrupt` says whether
 * the state answers the interrupt flag (as CallStateRequest.interrupt).
 */
export interface ClaimFirstRequest extends ClaimRequest {
  readonly guard: ClaimGuard;
  readonly interrupt: boolean;
}

export interface ClaimFirstResult {
  /**
   * The fresh claim (`planClaim(null, req)`'s record, previous null), or null when nothing was
   * written: a record exists (live, or past its retention), the guard failed, or another
   * claimer inserted first. Then the caller claims the usual way (`claimOperation`).
   */
  readonly claimed: Extract<ClaimResult, { kind: "claimed" }> | null;
  /**
   * The call state as `readCallState` answers it for the same request, read with the claim.
   * When the claim was made: no operation (none existed), no interrupt, and the approval
   * (when asked for) approved and unexpired, as the guard saw them.
   */
  readonly state: CallState;
  /**
   * With `limits`: each limit key's figures before this call, read under the key locks in the
   * claim's atomic section; the claim is made only when the call fits every cap (`seen` is not
   * compared), so the figures hold until it commits and the policy may decide on them.
   */
  readonly figures?: Readonly<Record<string, LimitFigures>>;
}

export type RecordOutcomeResult =
  | { readonly recorded: true; readonly record: OperationRecord }
  /** `stale_fence`: someone took over; `already_final`: an outcome exists; `missing`: no such record. */
  | { readonly recorded: false; readonly why: "stale_fence" | "already_final" | "missing"; readonly record: OperationRecord | null };

// ---------------------------------------------------------------- approvals

/** `revoke` withdraws a pending or given approval (allowed even after expiry); the others settle a pending one. */
export type ApprovalDecisionKind = "approve" | "edit" | "reject" | "revoke";
/** `expired`: never decided before its expiry; such approvals are deleted by purgeExpired. */
export type ApprovalStatus = "pending" | "approved" | "edited" | "rejected" | "revoked" | "expired";

/** A durable request for a human decision about one exact call. */
export interface ApprovalRecord {
  readonly id: string;
  readonly tenant: string;
  readonly run_id: string;
  /** The user on whose behalf the model proposed the call. */
  readonly requested_by: string;
  readonly tool: string;
  /** The exact arguments of the call (what runs if approved). */
  readonly args: JsonObject;
  /** The tool's declared preview fields of `args`: what the approver sees and signs. */
  readonly preview: JsonObject;
  readonly fingerprint: string;
  /**
   * Hex SHA-256 of the RFC 8785 JSON of tenant, tool and the complete arguments: what the
   * approval is bound to (the preview is only what the approver is shown first).
   */
  readonly args_hash: string;
  readonly operation_id: string | null;
  readonly created_at_ms: number;
  readonly expires_at_ms: number;
  /** Policy version (code and data together) under which the approval was requested. */
  readonly policy_version: string;
  /** Hash of the compiled policy code alone, and of its data alone, at request time. */
  readonly policy_code_version: string;
  readonly policy_data_version: string;
  readonly status: ApprovalStatus;
  /** The deciding event, once decided. */
  readonly decision: ApprovalEvent | null;
  /** The operation whose final outcome was recorded under this approval (single use), or null. */
  readonly consumed_by: string | null;
  readonly consumed_at_ms: number | null;
}

export type NewApproval = Omit<ApprovalRecord, "status" | "decision" | "consumed_by" | "consumed_at_ms">;

/** Marks an approved approval as used by the operation that committed under it. */
export interface ConsumeApprovalRequest {
  readonly approval_id: string;
  readonly tenant: string;
  readonly operation_id: string;
  readonly now_ms: number;
}

/**
 * `ok` also when the same operation consumed it before (recording is idempotent);
 * `already_consumed`: another operation did; `not_approved`: missing, other tenant, or not approved.
 */
export type ConsumeApprovalResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly why: "already_consumed" | "not_approved" };

/** One decision about an approval: who, what, when, why, under which policy. */
export interface ApprovalEvent {
  readonly approval_id: string;
  readonly decision: ApprovalDecisionKind;
  /** The approver's user id (trusted, from the host's authentication), in the approval's tenant. */
  readonly approver: string;
  /** The approver's roles when deciding. */
  readonly approver_roles: readonly string[];
  readonly reason: string | null;
  /** For `edit`: the arguments the approver wants instead (a new call with its own fingerprint). */
  readonly edited_args: JsonObject | null;
  readonly decided_at_ms: number;
  readonly policy_version: string;
  readonly policy_code_version: string;
  readonly policy_data_version: string;
}

export type DecideResult =
  | { readonly ok: true; readonly approval: ApprovalRecord }
  | { readonly ok: false; readonly why: "not_found" | "already_decided" | "expired"; readonly approval: ApprovalRecord | null }
  /**
   * A revoke that came after the call under the approval claimed its operation: nothing was
   * written (the approval stays approved). `outcome`: the recorded envelope, or null while the
   * call runs or its outcome is unknown.
   */
  | { readonly ok: false; readonly why: "already_executed"; readonly approval: ApprovalRecord; readonly outcome: JsonObject | null };

// ---------------------------------------------------------------- quorum

/**
 * One approver's approval of a call that needs several (a quorum): bound to the approval's
 * argument hash and policy version. One per approver and approval.
 */
export interface ApprovalVote {
  readonly approval_id: string;
  readonly tenant: string;
  readonly approver: string;
  readonly approver_roles: readonly string[];
  readonly args_hash: string;
  readonly policy_version: string;
  readonly decided_at_ms: number;
}

/** What the policy demanded of one approval beyond its tool's approval spec (the stricter applies). */
export interface ApprovalRequirement {
  readonly approval_id: string;
  readonly quorum: number;
  readonly quorum_roles: readonly string[];
  readonly signed: boolean;
}

// ---------------------------------------------------------------- passkeys and signed decisions

/** An approver's registered passkey (WebAuthn credential), used to sign decisions. */
export interface ApproverCredential {
  /** The credential id, base64url (unique across tenants). */
  readonly credential_id: string;
  readonly tenant: string;
  readonly approver: string;
  /** COSE public key, base64url. */
  readonly public_key: string;
  /** The authenticator's signature counter at the last verified use. */
  readonly counter: number;
  readonly transports: readonly string[];
  /** The relying party id and origin it was registered for. */
  readonly rp_id: string;
  readonly origin: string;
  readonly created_at_ms: number;
}

/**
 * A WebAuthn assertion over a decision: `record` is the signed decision record (its SHA-256 of
 * canonical JSON is the challenge), `assertion` the authenticator's response as sent by the
 * browser. `approval_id` is the approval whose execution it governs (for an edit: also the
 * edited call's approval, with the same assertion).
 */
export interface DecisionSignature {
  readonly approval_id: string;
  readonly tenant: string;
  readonly decision: ApprovalDecisionKind;
  readonly approver: string;
  readonly credential_id: string;
  readonly record: JsonObject;
  readonly assertion: JsonObject;
  readonly signed_at_ms: number;
}

// ---------------------------------------------------------------- the approvals inbox

/**
 * The call that got `approval_required`, kept so that the host can execute it after
 * the decision without the model: the tool, the validated arguments, the operation id
 * and the trusted context it was proposed under.
 */
export interface PendingCall {
  readonly approval_id: string;
  readonly tenant: string;
  readonly run_id: string;
  readonly user: string;
  readonly roles: readonly string[];
  readonly tool: string;
  readonly args: JsonObject;
  readonly operation_id: string | null;
  /** The policy's reason for asking (what the approver is told). */
  readonly policy_reason: string | null;
  readonly created_at_ms: number;
  /** For an edited approval: the approval of the edited call, which is what runs instead. */
  readonly replaced_by: string | null;
  /** When a webhook announced the approval (null: not yet). */
  readonly announced_at_ms: number | null;
}

export type NewPendingCall = Omit<PendingCall, "replaced_by" | "announced_at_ms">;

/** Approvals of one tenant, newest first (created_at_ms, then id, both descending). */
export interface ApprovalListQuery {
  readonly tenant: string;
  readonly tool?: string;
  readonly status?: ApprovalStatus;
  readonly requested_by?: string;
  /** Only approvals created strictly before this time. */
  readonly created_before_ms?: number;
  /** Only approvals strictly after this position in the order (the last row of the previous page). */
  readonly after?: { readonly created_at_ms: number; readonly id: string };
  readonly limit: number;
}

// ---------------------------------------------------------------- interrupts and the decision log

export interface InterruptRecord {
  readonly tenant: string;
  readonly run_id: string;
  readonly reason: string;
  readonly at_ms: number;
}

/** `allow`/`deny`/`approval_required` come from the policy; `not_evaluated` means an earlier phase answered. */
export type PolicyDecisionKind = "allow" | "deny" | "approval_required" | "not_evaluated";

export interface DecisionLogEntry {
  /** Unique id of the decision (OPA's `decision_id`); the store assigns a random UUID when absent. */
  readonly decision_id?: string;
  /** OPA's `timestamp`, epoch ms. */
  readonly at_ms: number;
  readonly tenant: string;
  readonly run_id: string;
  readonly user: string;
  readonly tool: string;
  readonly operation_id: string | null;
  readonly fingerprint: string | null;
  readonly decision: PolicyDecisionKind;
  /** The policy's or the runtime's reason. */
  readonly reason: string | null;
  /** The enforced policy's version (OPA's bundle revision). */
  readonly policy_version: string | null;
  /** The envelope's outcome and reason. */
  readonly outcome: string;
  readonly outcome_reason: string | null;
  /** OPA's `path`: the entrypoint evaluated, e.g. "toolgate/authz/decision"; null when the policy was not asked. */
  readonly path?: string | null;
  /** The policy input exactly as evaluated, with sensitive fields erased; null when the policy was not asked. */
  readonly input?: JsonObject | null;
  /** The policy's result (the decision object); null when the policy was not asked. */
  readonly result?: JsonValue | null;
  /** OPA's `erased`: JSON pointers of the input fields removed before logging ("/input/args/card"). */
  readonly erased?: readonly string[];
  /** OPA's `metrics.timer_rego_query_eval_ns`: the policy evaluation time. */
  readonly eval_ns?: number | null;
  /** A shadow policy's answer for the same input, when one ran. */
  readonly shadow?: ShadowDecision | null;
  /** The error the handler (or reconciler) threw, when it threw: the model saw only its `error_id`. */
  readonly error?: HandlerErrorDetail | null;
  /** After this the entry is purged (the runtime's decision-log retention); null keeps it. */
  readonly expires_at_ms?: number | null;
  /** OPA's `labels`: the runtime's `id` (instance), toolgate `version`, `service` and the host's own labels. */
  readonly labels?: DecisionLabels | null;
  /** OPA's `trace_id`: the W3C trace id (32 hex digits) of the call's recording span; null without one. */
  readonly trace_id?: string | null;
  /** OPA's `span_id`: the id (16 hex digits) of the call's recording span; null without one. */
  readonly span_id?: string | null;
}

/** A decision-log entry's labels: string values only (see runtime/decision-log.ts for the bounds). */
export type DecisionLabels = Readonly<Record<string, string>>;

/** A thrown handler error as logged: the values of the tool's sensitive arguments erased from its texts. */
export interface HandlerErrorDetail {
  /** The id the model was given (`e_` + the entry's decision id without dashes). */
  readonly error_id: string;
  /** How the runtime answered it: a retry, a permanent failure, or an effect whose outcome is unknown. */
  readonly treated_as: "retryable" | "permanent" | "outcome_unknown";
  /** The tools.yaml `errors:` key (a code or name) or mark (`transient`, `permanent`) that classified it; null when undeclared. */
  readonly matched: string | null;
  readonly name: string;
  readonly code: string | null;
  readonly message: string;
  readonly stack: string | null;
  /** Sensitive argument fields whose values were erased from the message or stack. */
  readonly erased: readonly string[];
}

/** What a shadow (candidate) policy would have decided; it is logged, never enforced. */
export interface ShadowDecision {
  readonly policy_version: string;
  readonly decision: PolicyDecisionKind;
  readonly reason: string;
  readonly result: JsonValue | null;
  readonly eval_ns: number;
  /** True when the shadow's allow / deny / approval differs from the enforced decision. */
  readonly disagrees: boolean;
}

/** A logged decision as read back: every field present. */
export interface DecisionLogRecord extends DecisionLogEntry {
  readonly decision_id: string;
  readonly path: string | null;
  readonly input: JsonObject | null;
  readonly result: JsonValue | null;
  readonly erased: readonly string[];
  readonly eval_ns: number | null;
  readonly shadow: ShadowDecision | null;
  readonly error: HandlerErrorDetail | null;
  readonly expires_at_ms: number | null;
  /** Null for entries written before labels existed. */
  readonly labels: DecisionLabels | null;
  readonly trace_id: string | null;
  readonly span_id: string | null;
}

export interface DecisionQuery {
  readonly tenant?: string;
  readonly operation_id?: string;
  readonly tool?: string;
  /** Matches the policy's reason or the envelope's reason. */
  readonly reason?: string;
  /** Only entries at or after this time (epoch ms). */
  readonly since_ms?: number;
  /** Only entries whose shadow policy disagreed. */
  readonly shadow_disagrees?: boolean;
  /** Default 1000. */
  readonly limit?: number;
}

// ---------------------------------------------------------------- the policy the gates run

/**
 * The policy a gate of this store put in force most recently, per entrypoint: written by a
 * runtime before its first call completes and whenever its policy is swapped (last writer wins).
 * An approver process compares its own versions with it, because a decision recorded under
 * other policy code than the gates' will not be accepted when the call commits.
 */
export interface CurrentPolicyRecord {
  /** The policy entrypoint the gates evaluate, e.g. "toolgate/authz/decision". */
  readonly entrypoint: string;
  readonly version: string;
  readonly code_version: string;
  readonly data_version: string;
  /** The runtime instance that wrote it (its lease owner id). */
  readonly owner: string;
  readonly updated_at_ms: number;
}

// ---------------------------------------------------------------- the roles

/*
 * A backend implements every role below; `Store` is their intersection. A consumer that needs
 * one role takes that role's type, so a test double or a new backend can start with one role.
 */

/** Idempotency records: claims under a lease and fence token, outcomes, attempts; and the call state read with them. */
export interface OperationStore {
  /** The live record, or null when absent or past its retention (a record with a live lease is never past it). */
  getOperation(tenant: string, operation_id: string, now_ms: number): Promise<OperationRecord | null>;
  /** The operation record, the run's interrupt flag and the presented approval, read at once. */
  readCallState(req: CallStateRequest): Promise<CallState>;
  /** Atomically creates, takes over (expired lease or non-final status) or reports the record. See ClaimResult. */
  claimOperation(req: ClaimRequest): Promise<ClaimResult>;
  /**
   * The fresh claim of a key with no record, guarded, together with the call state (see
   * ClaimFirstRequest): what readCallState and then claimOperation would do for a new key,
   * in one round trip.
   */
  claimFirst(req: ClaimFirstRequest): Promise<ClaimFirstResult>;
  /**
   * Gives back a fresh claim whose handler never ran (the call was answered before invoke):
   * deletes the record only while it is still exactly that claim (same fence token and
   * owner and creation time, in_progress, one attempt, never taken over), so a later call
   * starts fresh instead of reconciling an unknown outcome. Returns whether it deleted.
   */
  releaseClaim(claim: OperationRecord): Promise<boolean>;
  /**
   * Writes an outcome only under the current fence token and only while not final; with
   * `consume_approval_id` and `decision`, the approval's consumption and the decision-log
   * entry commit in the same transaction as the outcome.
   */
  recordOutcome(req: RecordOutcomeRequest): Promise<RecordOutcomeResult>;
  /**
   * The previous attempt provably did not apply its effect (its reconciler answered
   * not_applied): takes one attempt back, only under the current fence token while the
   * caller holds the claim. Returns whether it did.
   */
  refundAttempt(req: RefundAttemptRequest): Promise<boolean>;
}

/** Limit figures (tools.yaml `limits:`); the entries are written by claims with `limits`. */
export interface LimitStore {
  /** Each limit key's figures now (LimitFigures), by limit name. */
  readLimitFigures(req: LimitFiguresRequest): Promise<Record<string, LimitFigures>>;
}

/** Approvals and their append-only decision events. */
export interface ApprovalStore {
  createApproval(approval: NewApproval): Promise<ApprovalRecord>;
  getApproval(id: string): Promise<ApprovalRecord | null>;
  /**
   * The newest pending, unexpired approval for the same tenant and fingerprint (and, when given,
   * the same complete-argument hash), if any: avoids duplicate requests.
   */
  findPendingApproval(tenant: string, fingerprint: string, now_ms: number, args_hash?: string): Promise<ApprovalRecord | null>;
  /**
   * Appends the decision event and sets the status, atomically: approve/edit/reject only
   * while pending and unexpired; revoke while pending or approved, and only while no call
   * under the approval has claimed its operation (a record of the approval's tenant, operation
   * and tool that is not `retryable`) nor consumed it, else `already_executed`. The check is
   * atomic with the guarded claim (ClaimRequest.guard): of a revoke and a claim, exactly one wins.
   */
  decideApproval(event: ApprovalEvent): Promise<DecideResult>;
  /** Single use: records the operation that committed under an approved approval (see ConsumeApprovalResult). */
  consumeApproval(req: ConsumeApprovalRequest): Promise<ConsumeApprovalResult>;
  /** Every recorded decision event of an approval, oldest first. */
  listApprovalEvents(approval_id: string): Promise<ApprovalEvent[]>;
}

/** Approvals that need several approvers: votes, and the policy's demand of one approval. */
export interface QuorumStore {
  /** Records an approver's vote towards a quorum; false (and nothing changes) when this approver already voted. */
  addApprovalVote(vote: ApprovalVote): Promise<boolean>;
  /** The votes of an approval, oldest first. */
  listApprovalVotes(approval_id: string): Promise<ApprovalVote[]>;
  /** Stores the policy's demand for an approval (before the approval itself, so it is never missing); the first one stays. */
  setApprovalRequirement(req: ApprovalRequirement): Promise<void>;
  getApprovalRequirement(approval_id: string): Promise<ApprovalRequirement | null>;
}

/** Approvers' passkeys and the assertions that sign decisions. */
export interface PasskeyStore {
  /** Registers a passkey; false (and nothing changes) when the credential id is already registered. */
  saveApproverCredential(cred: ApproverCredential): Promise<boolean>;
  getApproverCredential(credential_id: string): Promise<ApproverCredential | null>;
  listApproverCredentials(tenant: string, approver: string): Promise<ApproverCredential[]>;
  /** Raises the stored counter (never lowers it); returns whether it changed. */
  raiseCredentialCounter(credential_id: string, counter: number): Promise<boolean>;
  /** Stores a decision's assertion (append-only). */
  saveDecisionSignature(sig: DecisionSignature): Promise<void>;
  /** Every stored assertion governing an approval, oldest first. */
  listDecisionSignatures(approval_id: string): Promise<DecisionSignature[]>;
}

/** The approvals inbox: listing, the pending call behind an approval, webhook announcements. */
export interface InboxStore {
  /** One page of a tenant's approvals with their latest decision, in the order of ApprovalListQuery. */
  listApprovals(query: ApprovalListQuery): Promise<ApprovalRecord[]>;
  /** Stores the pending call of an approval; returns false (and changes nothing) when one is already stored. */
  savePendingCall(call: NewPendingCall): Promise<boolean>;
  getPendingCall(approval_id: string): Promise<PendingCall | null>;
  /** Links an edited approval to the approval of its edited call, storing that call, atomically. */
  replacePendingCall(approval_id: string, replacement: NewPendingCall): Promise<void>;
  /**
   * Marks up to `limit` pending calls whose approval is still pending and not yet announced
   * as announced at `now_ms` and returns them; concurrent callers never get the same one.
   */
  claimAnnouncements(now_ms: number, limit: number): Promise<PendingCall[]>;
  /** Clears the announcement mark (the webhook failed; a later claim retries it). */
  unmarkAnnouncement(approval_id: string): Promise<void>;
}

/** Run interrupt flags. */
export interface InterruptStore {
  setInterrupt(rec: InterruptRecord): Promise<void>;
  getInterrupt(tenant: string, run_id: string): Promise<InterruptRecord | null>;
  clearInterrupt(tenant: string, run_id: string): Promise<void>;
}

/** The decision log (group-committed, see DecisionLogOptions) and a run's history read from it. */
export interface DecisionLogStore {
  /**
   * Logs one decision. By default entries are group-committed (see `DecisionLogOptions`):
   * the promise settles once the entry is queued, and reads of the log flush first.
   */
  appendDecision(entry: DecisionLogEntry): Promise<void>;
  /** Writes queued decision-log entries now (also done on close and at process exit). */
  flushDecisions(): Promise<void>;
  /** Newest first. */
  listDecisions(query?: DecisionQuery): Promise<DecisionLogRecord[]>;
  getDecision(decision_id: string): Promise<DecisionLogRecord | null>;
  /**
   * The run's latest decision-log entries, oldest first (input.run). Entries this store still
   * queues for group commit are written first, so every call this process answered is in it.
   */
  readRunHistory(req: RunHistoryRequest): Promise<RunHistoryEntry[]>;
}

/** The policy the gates of this store put in force. */
export interface CurrentPolicyStore {
  /** Records the policy a gate put in force now for `entrypoint` (replacing what another gate wrote). */
  setCurrentPolicy(rec: CurrentPolicyRecord): Promise<void>;
  /** The policy most recently put in force for `entrypoint`, or null when no gate recorded one. */
  getCurrentPolicy(entrypoint: string): Promise<CurrentPolicyRecord | null>;
}

/** What every store has besides its roles. */
export interface StoreLifecycle {
  /** Short name for diagnostics ("sqlite", "postgres"). */
  readonly kind: string;
  /**
   * Deletes operation records past their retention whose lease is not live, approvals
   * that expired undecided (`expired`, or `pending` past `expires_at_ms`: they hold
   * model-sent arguments and no decision), and decision-log entries past their retention.
   * Decided approvals are kept for audit. Returns the number of rows deleted.
   */
  purgeExpired(now_ms: number): Promise<number>;
  close(): Promise<void>;
}

/** Every role (their intersection): what the runtime, the approvals API and the CLI open. */
export interface Store
  extends StoreLifecycle,
    OperationStore,
    LimitStore,
    ApprovalStore,
    QuorumStore,
    PasskeyStore,
    InboxStore,
    InterruptStore,
    DecisionLogStore,
    CurrentPolicyStore {}
