/**
 * Approvals: a durable pending request holding the exact preview, fingerprint,
 * tenant and expiry, and decisions recorded as events (approver, decision, reason,
 * time, policy version). `edit` does not approve the original call: it creates a new
 * approval for the edited arguments, with their own fingerprint, approved by the
 * same approver, which the caller then uses for the edited call.
 */
import { randomUUID } from "node:crypto";
import type { JsonObject } from "../manifest.js";
import type { ApprovalEvent, ApprovalRecord } from "../store/store.js";
import { fingerprint, pickFields } from "./fingerprint.js";
import { formatProblems } from "./problems.js";
import type { PreparedCall, RuntimeDeps } from "./types.js";

/** Used when a custom policy asks approval for a tool that declares none. */
const DEFAULT_TTL_MS = 15 * 60_000;

export async function requestApproval(deps: RuntimeDeps, call: PreparedCall, now: number): Promise<ApprovalRecord> {
  const existing = await deps.store.findPendingApproval(call.ctx.tenant, call.fingerprint, now);
  if (
    existing !== null &&
    existing.tool === call.tool.name &&
    existing.operation_id === call.operation_id &&
    existing.policy_version === deps.policy.version
  ) {
    return existing;
  }
  const spec = call.tool.approval;
  return deps.store.createApproval({
    id: `apr_${randomUUID()}`,
    tenant: call.ctx.tenant,
    run_id: call.ctx.run_id,
    requested_by: call.ctx.user,
    tool: call.tool.name,
    args: call.args,
    preview: pickFields(call.args, spec?.preview ?? call.tool.fingerprint),
    fingerprint: call.fingerprint,
    operation_id: call.operation_id,
    created_at_ms: now,
    expires_at_ms: now + (spec?.ttl_ms ?? DEFAULT_TTL_MS),
    policy_version: deps.policy.version,
  });
}

export interface DecideRequest {
  /** `revoke` withdraws a pending or given approval; a call already past authorize is stopped before its claim. */
  readonly decision: "approve" | "edit" | "reject" | "revoke";
  /** Identity of the human deciding (from the host's auth, not from the model). */
  readonly approver: string;
  readonly reason?: string;
  /** Required with `edit`: the full arguments the approver wants instead. */
  readonly edited_args?: JsonObject;
}

export type DecideOutcome =
  | {
      readonly ok: true;
      readonly approval: ApprovalRecord;
      /** For `edit`: the approved new call; make it with exactly this tool, args, operation_id and approval_id. */
      readonly edited?: { readonly approval: ApprovalRecord; readonly tool: string; readonly args: JsonObject; readonly operation_id: string };
    }
  | { readonly ok: false; readonly why: "not_found" | "already_decided" | "expired" | "invalid_edit"; readonly message: string };

export interface Approvals {
  decide(approvalId: string, req: DecideRequest): Promise<DecideOutcome>;
  get(approvalId: string): Promise<ApprovalRecord | null>;
  events(approvalId: string): Promise<ApprovalEvent[]>;
}

export function createApprovals(deps: RuntimeDeps): Approvals {
  const decide = async (approvalId: string, req: DecideRequest): Promise<DecideOutcome> => {
    const now = deps.clock.now();
    const current = await deps.store.getApproval(approvalId);
    if (current === null) return { ok: false, why: "not_found", message: `approval ${approvalId} does not exist` };
    let edited: { args: JsonObject; fingerprint: string } | null = null;
    if (req.decision === "edit") {
      const validate = deps.validators[current.tool]?.input;
      const args = req.edited_args === undefined ? undefined : (JSON.parse(JSON.stringify(req.edited_args)) as JsonObject);
      if (args === undefined || validate === undefined || !validate(args)) {
        const problems = args === undefined ? ["edited_args: required for edit"] : formatProblems(validate?.errors);
        return { ok: false, why: "invalid_edit", message: `edited arguments are invalid: ${problems.join("; ")}` };
      }
      const tool = deps.manifest.tools[current.tool];
      edited = { args, fingerprint: fingerprint(current.tenant, current.tool, args, tool?.fingerprint ?? []) };
    }
    const event: ApprovalEvent = {
      approval_id: approvalId,
      decision: req.decision,
      approver: req.approver,
      reason: req.reason ?? null,
      edited_args: edited?.args ?? null,
      decided_at_ms: now,
      policy_version: deps.policy.version,
    };
    const result = await deps.store.decideApproval(event);
    if (!result.ok) return { ok: false, why: result.why, message: `approval ${approvalId} cannot be decided: ${result.why}` };
    if (edited === null) return { ok: true, approval: result.approval };
    // The edit's own approval: same scope and expiry, new fingerprint, approved by the editor.
    const tool = deps.manifest.tools[current.tool];
    const next = await deps.store.createApproval({
      ...current,
      id: `apr_${randomUUID()}`,
      args: edited.args,
      preview: pickFields(edited.args, tool?.approval?.preview ?? tool?.fingerprint ?? []),
      fingerprint: edited.fingerprint,
      // The edited call is a new operation: the original id is bound to the original arguments.
      operation_id: `op_${randomUUID()}`,
      created_at_ms: now,
      policy_version: deps.policy.version,
    });
    const approved = await deps.store.decideApproval({
      ...event,
      approval_id: next.id,
      decision: "approve",
      edited_args: null,
      reason: `edit of ${approvalId}${req.reason === undefined ? "" : `: ${req.reason}`}`,
    });
    if (!approved.ok) return { ok: false, why: approved.why, message: `edited approval cannot be recorded: ${approved.why}` };
    const operationId = approved.approval.operation_id ?? "";
    return { ok: true, approval: result.approval, edited: { approval: approved.approval, tool: current.tool, args: edited.args, operation_id: operationId } };
  };
  return {
    decide,
    get: (id) => deps.store.getApproval(id),
    events: (id) => deps.store.listApprovalEvents(id),
  };
}
