/** The human approver the runner plays in scenarios that do not script `approval_required`. */
import type { Runtime } from "../runtime/index.js";

export const EVAL_APPROVER = "eval-approver";

/** Records `decision` for the approval as an approver of its tenant; returns the gate's message when it cannot be recorded. */
export async function hostDecide(runtime: Runtime, approvalId: string, decision: "approve" | "reject"): Promise<string | null> {
  const approval = await runtime.approvals.get(approvalId);
  if (approval === null) return `approval ${approvalId} does not exist`;
  const approver = { tenant: approval.tenant, user: EVAL_APPROVER, roles: [] };
  const d = await runtime.approvals.decide(approvalId, { decision, reason: "agent-eval host approver" }, approver);
  return d.ok ? null : d.message;
}
