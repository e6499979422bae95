/** The approvals API's request and answer types (list, get, resume). */
import type { ApprovalEvent, ApprovalRecord, ApprovalRequirement, ApprovalStatus, ApprovalVote, PendingCall } from "../store/store.js";

export interface ListApprovalsRequest {
  readonly tenant: string;
  readonly tool?: string;
  readonly status?: ApprovalStatus;
  readonly requested_by?: string;
  /** Only approvals created before this time (epoch ms or a Date). */
  readonly older_than?: number | Date;
  /** 1..200, default 50. */
  readonly limit?: number;
  /** `next_cursor` of the previous page. */
  readonly cursor?: string;
}

export interface ApprovalPage {
  readonly approvals: readonly ApprovalRecord[];
  /** Pass as `cursor` for the next page; null on the last page. */
  readonly next_cursor: string | null;
}

/** One approval with everything an approver needs to decide. */
export interface ApprovalDetail extends ApprovalRecord {
  /** Every decision event, oldest first. */
  readonly events: readonly ApprovalEvent[];
  /** The policy's reason for asking; null when the call behind it was not stored. */
  readonly policy_reason: string | null;
  /** The stored call (trusted context included); null when it was not stored. */
  readonly pending_call: PendingCall | null;
  /** True when pending and past its expiry (it can no longer be approved). */
  readonly expired: boolean;
  /** Approvals towards a quorum (tools.yaml `approval.quorum`), oldest first; empty otherwise. */
  readonly votes: readonly ApprovalVote[];
  /** What the policy demanded of this approval beyond the tool's spec (quorum, roles, signed); null: nothing. */
  readonly requirement: ApprovalRequirement | null;
}

/** What resuming answers; `E` is the gate's envelope (the runtime's `ResumeOutcome` is this of its `Envelope`). */
export type ResumeOutcomeOf<E> =
  | {
      readonly ok: true;
      /** The approval whose call ran (for an edit: the edited call's approval). */
      readonly approval_id: string;
      readonly tool: string;
      readonly operation_id: string | null;
      /** The call's envelope: its outcome, a replay of it, or the terminal answer of a rejected, revoked or expired approval. */
      readonly envelope: E;
    }
  | {
      readonly ok: false;
      /** `not_decided`: still pending and unexpired; `no_pending_call`: only the caller's retry can run it. */
      readonly why: "not_found" | "not_decided" | "no_pending_call";
      readonly message: string;
    };
