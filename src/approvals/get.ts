/** get: one approval with its decision events, the policy's reason and the stored call. */
import type { Store } from "../store/store.js";
import type { ApprovalDetail } from "./types.js";
import { isUnstorable } from "../call-data/unstorable-text.js";

export async function getApprovalDetail(store: Store, id: string, nowMs: number): Promise<ApprovalDetail | null> {
  // An id no store could hold (a NUL from a URL) is unknown alike on every store.
  if (typeof id !== "string" || id.length === 0 || id.length > 200 || isUnstorable(id)) return null;
  const approval = await store.getApproval(id);
  if (approval === null) return null;
  const [events, pending, votes, requirement] = await Promise.all([store.listApprovalEvents(id), store.getPendingCall(id), store.listApprovalVotes(id), store.getApprovalRequirement(id)]);
  return {
    ...approval,
    events,
    policy_reason: pending?.policy_reason ?? null,
    pending_call: pending,
    expired: approval.status === "pending" && approval.expires_at_ms <= nowMs,
    votes,
    requirement,
  };
}
