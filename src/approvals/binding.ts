/**
 * The binding of an approval to what executes, enforced by the runtime whatever the policy
 * says: an approval authorises only the call of the same tenant, principal (user and run,
 * unless tools.yaml `approval.binding: tenant`), tool, complete arguments (argument hash) and
 * operation id, decided `approve`, unexpired, not revoked, and not used up by another commit;
 * for a tool that needs a quorum, approved by enough distinct approvers (votes bound to the
 * same argument hash and policy version); for a tool whose approvals are signed, every
 * approval it relies on carries a valid passkey signature by its approver. The policy can deny
 * more, never allow more.
 */
import { approvalSignature } from "./decision-signature.js";
import { effectiveApproval, quorumState } from "./quorum.js";
import type { ApprovalRecord, OperationRecord } from "../store/store.js";
import { demandOf } from "./demand.js";
import type { ApprovalCall, ApprovalDeps } from "./deps.js";

export type BindingProblem =
  | "approval_tenant_mismatch"
  | "approval_principal_mismatch"
  | "approval_tool_mismatch"
  | "approval_args_mismatch"
  | "approval_operation_mismatch"
  | "approval_not_approved"
  | "approval_expired"
  | "approval_consumed"
  | "approval_quorum_incomplete"
  | "approval_signature_missing"
  | "approval_signature_invalid";

/** The call's argument hash (`argsHash` of tenant, tool and its complete arguments), computed in prepare. */
export function callArgsHash(call: ApprovalCall): string {
  return call.args_hash;
}

/**
 * The first reason the approval does not authorise this call, or null when it does.
 * `known`: the call's argument hash and whether the approval is used up, when already computed.
 */
export async function bindingProblem(
  deps: Pick<ApprovalDeps, "store">,
  approval: ApprovalRecord,
  call: ApprovalCall,
  now: number,
  known?: { readonly args_hash: string; readonly used_up: boolean },
): Promise<BindingProblem | null> {
  if (approval.tenant !== call.ctx.tenant) return "approval_tenant_mismatch";
  // Bound to the requesting principal unless the tool widens it to the tenant (tools.yaml approval.binding).
  if ((call.tool.approval?.binding ?? "principal") === "principal" && (approval.requested_by !== call.ctx.user || approval.run_id !== call.ctx.run_id)) {
    return "approval_principal_mismatch";
  }
  if (approval.tool !== call.tool.name) return "approval_tool_mismatch";
  if (approval.args_hash !== (known?.args_hash ?? callArgsHash(call))) return "approval_args_mismatch";
  if (approval.operation_id === null || approval.operation_id !== call.operation_id) return "approval_operation_mismatch";
  if (approval.status !== "approved" || approval.decision?.decision !== "approve") return "approval_not_approved";
  if (now >= approval.expires_at_ms) return "approval_expired";
  if (known?.used_up ?? (await usedUp(deps, approval, call, now))) return "approval_consumed";
  const needs = effectiveApproval(call.tool.approval, await demandOf(deps.store, approval.id));
  const state = needs.quorum === null ? null : quorumState(needs.quorum, approval, await deps.store.listApprovalVotes(approval.id));
  if (state !== null && !state.complete) return "approval_quorum_incomplete";
  if (needs.signed) {
    // Every approver the call relies on signed: the one who released it, or each of the quorum.
    for (const approver of state === null ? [approval.decision?.approver ?? ""] : state.approvers.map((a) => a.approver)) {
      const signed = await approvalSignature(deps.store, approval, approver);
      if (signed.state !== "valid") return signed.state === "unsigned" ? "approval_signature_missing" : "approval_signature_invalid";
    }
  }
  return null;
}

/**
 * Consumed by another operation, or by this operation id whose record is gone (past its
 * retention the same id is a new operation). The consuming operation itself, while its record
 * is live (a retry, a reconcile), may still rely on it.
 */
export async function usedUp(deps: Pick<ApprovalDeps, "store">, approval: ApprovalRecord, call: ApprovalCall, now: number, record?: OperationRecord | null): Promise<boolean> {
  if (approval.consumed_by === null) return false;
  if (call.operation_id === null || approval.consumed_by !== call.operation_id) return true;
  return (record !== undefined ? record : await deps.store.getOperation(call.ctx.tenant, call.operation_id, now)) === null;
}

/**
 * Single use: once the operation has an outcome other than "failed before any effect"
 * (final, unknown, or still running after a timeout), the approval it presented is consumed
 * by that operation. Errors go to onError: the answer
 * already stands, and the binding check still refuses a second operation.
 */
export async function consumeAfterInvoke(deps: Pick<ApprovalDeps, "store" | "clock" | "onError">, call: ApprovalCall): Promise<void> {
  if (call.approval_id === null || call.operation_id === null) return;
  try {
    const now = deps.clock.now();
    const record = await deps.store.getOperation(call.ctx.tenant, call.operation_id, now);
    if (record === null || record.status === "retryable") return;
    await deps.store.consumeApproval({ approval_id: call.approval_id, tenant: call.ctx.tenant, operation_id: call.operation_id, now_ms: now });
  } catch (err) {
    deps.onError(err);
  }
}
