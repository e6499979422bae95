/**
 * Requesting an approval: a durable pending request bound to the complete arguments (argument
 * hash), tenant, principal, tool, operation, policy version and expiry, with the policy's demand
 * (quorum, roles, signed) stored first.
 */
import { randomUUID } from "node:crypto";
import { pickFields } from "../call-data/fingerprint.js";
import type { ApprovalDemand } from "../policy/engine.js";
import { versionsOf } from "../policy/version.js";
import type { ApprovalRecord, ApprovalRequirement } from "../store/store.js";
import type { ApprovalCall, ApprovalDeps } from "./deps.js";
import { demandOf, rememberDemand } from "./demand.js";

/** Used when a custom policy asks approval for a tool that declares none. */
const DEFAULT_TTL_MS = 15 * 60_000;

const sameDemand = (a: ApprovalRequirement | null, b: ApprovalRequirement | null): boolean =>
  (a === null && b === null) || (a !== null && b !== null && a.quorum === b.quorum && a.signed === b.signed && a.quorum_roles.join("\u0000") === b.quorum_roles.join("\u0000"));

/**
 * A pending approval is reused only for the identical call: same tool, operation, policy, every
 * argument and the same demand of the policy. The policy's demand (`demand`: quorum, roles,
 * signed) is stored before the approval, so an approval never exists without it.
 */
export async function requestApproval(deps: Pick<ApprovalDeps, "store" | "policy">, call: ApprovalCall, now: number, demand?: ApprovalDemand): Promise<ApprovalRecord> {
  const id = `apr_${randomUUID()}`;
  const requirement: ApprovalRequirement | null =
    demand === undefined ? null : { approval_id: id, quorum: demand.quorum ?? 1, quorum_roles: [...(demand.quorum_roles ?? [])], signed: demand.signed === true };
  const hash = call.args_hash;
  const versions = versionsOf(deps.policy);
  const existing = await deps.store.findPendingApproval(call.ctx.tenant, call.fingerprint, now, hash);
  if (
    existing !== null &&
    existing.tool === call.tool.name &&
    existing.operation_id === call.operation_id &&
    existing.args_hash === hash &&
    existing.requested_by === call.ctx.user &&
    // A principal-bound approval serves only its own run: another run's would never authorise this call.
    ((call.tool.approval?.binding ?? "principal") === "tenant" || existing.run_id === call.ctx.run_id) &&
    existing.policy_version === versions.version &&
    sameDemand(await demandOf(deps.store, existing.id), requirement === null ? null : { ...requirement, approval_id: existing.id })
  ) {
    return existing;
  }
  if (requirement !== null) await deps.store.setApprovalRequirement(requirement);
  rememberDemand(deps.store, id, requirement);
  const spec = call.tool.approval;
  return deps.store.createApproval({
    id,
    tenant: call.ctx.tenant,
    run_id: call.ctx.run_id,
    requested_by: call.ctx.user,
    tool: call.tool.name,
    args: call.args,
    preview: pickFields(call.args, spec?.preview ?? call.tool.fingerprint),
    fingerprint: call.fingerprint,
    args_hash: hash,
    operation_id: call.operation_id,
    created_at_ms: now,
    expires_at_ms: now + (spec?.ttl_ms ?? DEFAULT_TTL_MS),
    policy_version: versions.version,
    policy_code_version: versions.code_version,
    policy_data_version: versions.data_version,
  });
}
