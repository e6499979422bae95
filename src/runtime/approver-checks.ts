/**
 * Separation of duties for approval decisions: who may decide what. The approver's context
 * is trusted (the host's authentication), but every field is still checked, because a host
 * may pass through whatever an HTTP request carried.
 */
import type { ApprovalSpec } from "../manifest.js";
import type { ApprovalDecisionKind, ApprovalRecord } from "../store/store.js";
import type { ApproverContext } from "./approver.js";

export const decisionKinds: readonly ApprovalDecisionKind[] = ["approve", "edit", "reject", "revoke"];

export const isDecisionKind = (v: unknown): v is ApprovalDecisionKind =>
  typeof v === "string" && (decisionKinds as readonly string[]).includes(v);

export type ApproverRefusal = "invalid_approver" | "not_found" | "self_approval" | "approver_role_required";

/** null when `approver` may make `decision` on `approval`; otherwise why not and a message. */
export function checkApprover(
  approval: ApprovalRecord,
  spec: Pick<ApprovalSpec, "self_approve" | "approver_roles"> | null,
  approver: ApproverContext,
  decision: ApprovalDecisionKind,
): { readonly why: ApproverRefusal; readonly message: string } | null {
  const a = approver as Partial<Record<keyof ApproverContext, unknown>> | null;
  if (
    a === null ||
    typeof a !== "object" ||
    typeof a.tenant !== "string" ||
    typeof a.user !== "string" ||
    a.user.trim() === "" ||
    !Array.isArray(a.roles) ||
    !a.roles.every((r) => typeof r === "string")
  ) {
    return { why: "invalid_approver", message: "the approver needs a tenant, a non-empty user and a list of roles from the host's authentication" };
  }
  // Another tenant's approval is answered as absent, so its existence does not leak.
  if (approver.tenant !== approval.tenant) return { why: "not_found", message: `approval ${approval.id} does not exist in tenant ${approver.tenant}` };
  const own = approver.user === approval.requested_by;
  // Approve and edit authorise an effect; reject and revoke only withdraw one.
  const authorises = decision === "approve" || decision === "edit";
  if (authorises && own && spec?.self_approve !== true) {
    return {
      why: "self_approval",
      message: `${approver.user} requested this call and cannot ${decision} it; another user of tenant ${approval.tenant} must decide (tools.yaml approval.self_approve allows it per tool)`,
    };
  }
  const roles = spec?.approver_roles ?? [];
  // The requester may always withdraw their own request; everything else needs a permitted role.
  if (roles.length > 0 && !(own && !authorises) && !approver.roles.some((r) => roles.includes(r))) {
    return { why: "approver_role_required", message: `deciding ${approval.tool} needs one of the roles ${roles.join(", ")}; ${approver.user} has ${approver.roles.length === 0 ? "none" : approver.roles.join(", ")}` };
  }
  return null;
}
