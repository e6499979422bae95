/** The human approver the runner plays in scenarios that do not script `approval_required`. */
import type { Runtime } from "../runtime/index.js";

export const EVAL_APPROVER = "eval-approver";

/** Records `decision` for the approval; returns the gate's message when it cannot be recorded. */
export async function hostDecide(runtime: Runtime, approvalId: string, decision: "approve" | "reject"): Promise<string | null> {
  const d = await runtime.approvals.decide(approvalId, { decision, approver: EVAL_APPROVER, reason: "agent-eval host approver" });
  return d.ok ? null : d.message;
}
