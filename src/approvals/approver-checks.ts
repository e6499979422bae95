/**
 * Separation of duties for approval decisions: who may decide what. The approver's context
 * is trusted (the host's authentication), but every field is still checked, because a host
 * may pass through whatever an HTTP request carried.
 */
import type { ApprovalSpec, ApprovalsSettings } from "../manifest.js";
import type { ApproverVerdict } from "../store/decision-plan.js";
import type { ApprovalDecisionKind, ApprovalRecord } from "../store/store.js";
import type { ApproverContext } from "./approver.js";
import { isCleanIdentity } from "../call-data/unstorable-text.js";

/** What an approver may decide (the store's `ApprovalDecisionKind`). */
export type DecisionKind = ApprovalDecisionKind;

/** Every decision kind, in the order messages and the inbox list them. */
export const decisionKinds: readonly DecisionKind[] = ["approve", "edit", "reject", "revoke"];

export const isDecisionKind = (v: unknown): v is ApprovalDecisionKind =>
  typeof v === "string" && (decisionKinds as readonly string[]).includes(v);

export type { ApproverRefusal } from "../store/decision-plan.js";


/**
 * The identity compared for self-approval: NFC, trimmed, and case-folded when tools.yaml
 * `approvals.identity_case` says the identity provider ignores case. "Alice", " alice" and
 * "alice" are one user unless the provider tells them apart.
 */
export function normalIdentity(user: string, identityCase: ApprovalsSettings["identity_case"] = "sensitive"): string {
  const n = user.normalize("NFC").trim();
  return identityCase === "insensitive" ? n.toLocaleLowerCase("und").normalize("NFC") : n;
}

/**
 * null when `approver` may make `decision` on `approval`; otherwise why not and a message.
 * `settings`: the manifest's `approvals:` (default approver roles, identity case); absent: none.
 */
export function checkApprover(
  approval: ApprovalRecord,
  spec: Pick<ApprovalSpec, "self_approve" | "approver_roles"> | null,
  approver: ApproverContext,
  decision: ApprovalDecisionKind,
  settings?: ApprovalsSettings,
): ApproverVerdict {
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
  if (!isCleanIdentity(a.tenant) || !isCleanIdentity(a.user) || !a.roles.every(isCleanIdentity)) {
    return { why: "invalid_approver", message: "the approver's tenant, user and roles must not contain control characters (NUL included) or unpaired surrogates; the host must fix its authentication" };
  }
  // Another tenant's approval is answered exactly as an id that does not exist, so its existence does not leak.
  if (approver.tenant !== approval.tenant) return { why: "not_found", message: `approval ${approval.id} does not exist` };
  const own = normalIdentity(approver.user, settings?.identity_case) === normalIdentity(approval.requested_by, settings?.identity_case);
  // Approve and edit authorise an effect; reject and revoke only withdraw one.
  const authorises = decision === "approve" || decision === "edit";
  if (authorises && own && spec?.self_approve !== true) {
    return {
      why: "self_approval",
      message: `${approver.user} requested this call and cannot ${decision} it; another user of tenant ${approval.tenant} must decide (tools.yaml approval.self_approve allows it per tool)`,
    };
  }
  // The requester may always withdraw their own request, and approve it where the tool allows
  // self-approval (an explicit per-tool opt-in); everything else needs a permitted role.
  if (own) return null;
  const declared = spec?.approver_roles ?? [];
  const roles = declared.length > 0 ? declared : (settings?.default_approver_roles ?? []);
  if (roles.length === 0) {
    return {
      why: "approver_roles_unconfigured",
      message: `nobody may decide ${approval.tool}: it declares no approval.approver_roles and tools.yaml sets no approvals.default_approver_roles; name the approver roles there`,
    };
  }
  if (!approver.roles.some((r) => roles.includes(r))) {
    return { why: "approver_role_required", message: `deciding ${approval.tool} needs one of the roles ${roles.join(", ")}; ${approver.user} has ${approver.roles.length === 0 ? "none" : approver.roles.join(", ")}` };
  }
  return null;
}
