/**
 * Durable pause: when a call gets `approval_required`, its pending call (tool,
 * validated arguments, operation id, trusted context, run id, the policy's reason)
 * is stored next to the approval, and the envelope says what happens next.
 */
import type { ApprovalRecord, PendingCall, Store } from "../store/store.js";
import type { ApprovalCall } from "./deps.js";

/** Called once per newly stored pending call (e.g. to send a webhook); its errors never change the envelope. */
export type OnPendingApproval = (approval: ApprovalRecord, call: PendingCall) => void | Promise<void>;

export const nextStepText =
  "a human decides this approval in the approvals inbox; once approved the host resumes this exact call " +
  "(runtime.approvals.resume), or call again with the same tool, args, operation_id and approval_id: either way it runs once";

/** The gate's answer as far as the pause reads and extends it (an `approval_required` envelope). */
interface PausedAnswer {
  readonly outcome: string;
  readonly reason?: string;
  readonly approval_id?: string;
}

/** The answer, with `expires_at` and `next` when it is an `approval_required` whose call is now stored. */
export async function pausePendingCall<E extends { readonly outcome: string }>(
  store: Store,
  call: ApprovalCall,
  envelope: E,
  policyReason: string | null,
  nowMs: number,
  onPending: OnPendingApproval | undefined,
  onError: (err: unknown) => void,
): Promise<E> {
  const answer: PausedAnswer = envelope;
  if (answer.outcome !== "terminal_failure" || answer.reason !== "approval_required" || answer.approval_id === undefined) return envelope;
  try {
    return await pause(store, call, envelope, answer.approval_id, policyReason, nowMs, onPending, onError);
  } catch (err) {
    // Without the stored call only the caller's retry can run it; the answer stays approval_required.
    onError(err);
    return envelope;
  }
}

async function pause<E>(
  store: Store,
  call: ApprovalCall,
  envelope: E,
  approvalId: string,
  policyReason: string | null,
  nowMs: number,
  onPending: OnPendingApproval | undefined,
  onError: (err: unknown) => void,
): Promise<E> {
  const approval = await store.getApproval(approvalId);
  if (approval === null) return envelope;
  const stored = {
    approval_id: approval.id,
    tenant: call.ctx.tenant,
    run_id: call.ctx.run_id,
    user: call.ctx.user,
    roles: [...call.ctx.roles],
    tool: call.tool.name,
    args: call.args,
    operation_id: call.operation_id,
    policy_reason: policyReason,
    created_at_ms: nowMs,
  };
  const isNew = await store.savePendingCall(stored);
  if (isNew && onPending !== undefined) {
    try {
      await onPending(approval, { ...stored, replaced_by: null, announced_at_ms: null });
    } catch (err) {
      onError(err);
    }
  }
  return { ...envelope, expires_at: new Date(approval.expires_at_ms).toISOString(), next: nextStepText };
}
