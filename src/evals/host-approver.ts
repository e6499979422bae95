/** The human approver the runner plays in scenarios that do not script `approval_required`. */
import type { ApproverContext, Runtime } from "../runtime/index.js";

export const EVAL_APPROVER = "eval-approver";

/** The approver's trusted identity: another user of the agent's tenant (never the requester). */
export const hostApprover = (tenant: string): ApproverContext => ({ tenant, user: EVAL_APPROVER, roles: ["approver"] });

/** Records `decision` for the approval; returns the gate's message when it cannot be recorded. */
export async function hostDecide(runtime: Runtime, tenant: string, approvalId: string, decision: "approve" | "reject"): Promise<string | null> {
  const d = await runtime.approvals.decide(approvalId, { decision, reason: "agent-eval host approver" }, hostApprover(tenant));
  return d.ok ? null : d.message;
}
