/**
 * Deciding approvals: decisions recorded as events (approver and roles, decision, reason,
 * time, policy versions) after the approver checks (`approver-checks.ts`). `edit` does not approve the original call: it
 * creates a new approval for the edited arguments, with their own fingerprint, approved by
 * the same approver, which the caller then uses for the edited call.
 */
import { randomUUID } from "node:crypto";
import { argsHash, fingerprint, pickFields } from "../call-data/fingerprint.js";
import { formatProblems } from "../call-data/problems.js";
import { isUnstorable, unstorablePath } from "../call-data/unstorable-text.js";
import type { JsonObject } from "../manifest.js";
import { versionsOf } from "../policy/version.js";
import { alreadyExecutedText, decisionRefusalText, planDecision } from "../store/decision-plan.js";
import type { DecisionRequest } from "../store/decision-plan.js";
import type { ApprovalDecisionKind, ApprovalEvent, ApprovalRecord } from "../store/store.js";
import type { ApproverContext } from "./approver.js";
import { checkApprover, decisionKinds, isDecisionKind, normalIdentity } from "./approver-checks.js";
import type { ApproverRefusal } from "./approver-checks.js";
import { demandOf, rememberDemand } from "./demand.js";
import type { ApprovalDeps } from "./deps.js";
import { currentPolicyWarnings, versionWarnings } from "./policy-warnings.js";
import { effectiveApproval, quorumState } from "./quorum.js";
import type { QuorumSpec, QuorumState } from "./quorum.js";

/** What the approver decides. Every field is checked: it may come straight from an HTTP body. */
export interface DecideRequest {
  /** `revoke` withdraws a pending or given approval; a call already past authorize is stopped before its claim. */
  readonly decision: ApprovalDecisionKind;
  readonly reason?: string;
  /** Required with `edit`: the full arguments the approver wants instead. */
  readonly edited_args?: JsonObject;
}

export type DecideRefusal =
  | "not_found"
  | "already_decided"
  | "expired"
  | "invalid_edit"
  | "invalid_decision"
  /** This approver already approved a call that needs a quorum: another approver must. */
  | "already_voted"
  | ApproverRefusal;

export type DecideOutcome =
  | {
      readonly ok: true;
      readonly approval: ApprovalRecord;
      /** For `edit`: the approved new call; make it with exactly this tool, args, operation_id and approval_id. */
      readonly edited?: { readonly approval: ApprovalRecord; readonly tool: string; readonly args: JsonObject; readonly operation_id: string };
      /**
       * Things the approver must see: a decision made under other policy versions than the
       * request's (`policy_code_changed`, `policy_data_changed`) or than the gates run now
       * (`policy_code_not_current`, `policy_data_not_current`).
       */
      readonly warnings: readonly string[];
      /**
       * For a tool that needs several approvers: the quorum after this decision (of the edited
       * call's approval after an edit). While incomplete the approval stays pending.
       */
      readonly quorum?: QuorumState;
    }
  | { readonly ok: false; readonly why: DecideRefusal; readonly message: string }
  /** A revoke too late: the call under the approval claimed its operation first; the approval stays approved. */
  | { readonly ok: false; readonly why: "already_executed"; readonly message: string; readonly outcome: JsonObject | null };

export interface Approvals {
  /** Decides as `approver` (the host's trusted identity of the human deciding). */
  decide(approvalId: string, req: DecideRequest, approver: ApproverContext): Promise<DecideOutcome>;
  get(approvalId: string): Promise<ApprovalRecord | null>;
  events(approvalId: string): Promise<ApprovalEvent[]>;
}

/**
 * An approve towards a quorum, planned as a vote (`planDecision`): the approver's vote (one per
 * approver), bound to the approval's argument hash and policy version; the approval turns
 * approved only with the vote that completes the quorum. Concurrent completing votes both try;
 * the store decides one, and the other finds it approved.
 */
async function vote(deps: ApprovalDeps, approval: ApprovalRecord, quorum: QuorumSpec, event: ApprovalEvent): Promise<{ ok: true; approval: ApprovalRecord; quorum: QuorumState } | { ok: false; why: DecideRefusal; message: string }> {
  const added = await deps.store.addApprovalVote({
    approval_id: approval.id,
    tenant: approval.tenant,
    approver: voterIdentity(deps, event.approver),
    approver_roles: event.approver_roles,
    args_hash: approval.args_hash,
    policy_version: approval.policy_version,
    decided_at_ms: event.decided_at_ms,
  });
  // The store's own guard against a concurrent second vote of the same approver.
  if (!added) return { ok: false, why: "already_voted", message: decisionRefusalText(approval.id, "already_voted", event.approver) };
  const state = quorumState(quorum, approval, await deps.store.listApprovalVotes(approval.id));
  if (!state.complete) return { ok: true, approval: (await deps.store.getApproval(approval.id)) ?? approval, quorum: state };
  const result = await deps.store.decideApproval({ ...event, approval_id: approval.id, decision: "approve" });
  if (result.ok) return { ok: true, approval: result.approval, quorum: state };
  const now = await deps.store.getApproval(approval.id);
  if (result.why === "already_decided" && now?.status === "approved") return { ok: true, approval: now, quorum: state };
  const why = result.why === "already_executed" ? "already_decided" : result.why;
  return { ok: false, why, message: decisionRefusalText(approval.id, why) };
}

/** Distinct approvers are distinct identities as the provider sees them ("Bob" is bob when case is ignored). */
const voterIdentity = (deps: ApprovalDeps, user: string): string => normalIdentity(user, deps.manifest.approvals?.identity_case);

/** The request `planDecision` plans: for an approve towards a quorum, with the identities that voted so far. */
async function decisionRequest(deps: ApprovalDeps, approval: ApprovalRecord, decision: ApprovalDecisionKind, approver: string | null, voting: boolean): Promise<DecisionRequest> {
  // A refused approver's context may be anything (it is checked, not trusted): then it names no one.
  if (approver === null) return { approval_id: approval.id, decision };
  const req: DecisionRequest = { approval_id: approval.id, decision, approver };
  if (!voting) return req;
  const voted = (await deps.store.listApprovalVotes(approval.id)).map((v) => v.approver);
  return { ...req, vote: { identity: voterIdentity(deps, approver), voted } };
}

const storableId = (id: unknown): id is string => typeof id === "string" && !isUnstorable(id);

/** The decision core of the approvals API (`createApprovals` adds listing, details and edit links). */
export function approvalDecisions(deps: ApprovalDeps): Approvals {
  const decide = async (approvalId: string, req: DecideRequest, approver: ApproverContext): Promise<DecideOutcome> => {
    const decision: unknown = (req as { decision?: unknown } | null)?.decision;
    if (!isDecisionKind(decision)) {
      return { ok: false, why: "invalid_decision", message: `decision must be one of ${decisionKinds.join(", ")}; got ${JSON.stringify(decision)?.slice(0, 40) ?? "nothing"}` };
    }
    const reason: unknown = req.reason;
    if (reason !== undefined && (typeof reason !== "string" || isUnstorable(reason))) {
      return { ok: false, why: "invalid_decision", message: "reason must be a string when given, without NUL characters or unpaired surrogates" };
    }
    const now = deps.clock.now();
    const current = storableId(approvalId) ? await deps.store.getApproval(approvalId) : null;
    if (current === null) return { ok: false, why: "not_found", message: decisionRefusalText(approvalId, "not_found") };
    const tool = deps.manifest.tools[current.tool];
    const verdict = checkApprover(current, tool?.approval ?? null, approver, decision, deps.manifest.approvals);
    let edited: { args: JsonObject; fingerprint: string } | null = null;
    if (verdict === null && decision === "edit") {
      const validate = deps.validators[current.tool]?.input;
      const args = req.edited_args === undefined ? undefined : (JSON.parse(JSON.stringify(req.edited_args)) as JsonObject);
      const unstorable = args === undefined ? null : unstorablePath(args);
      if (args === undefined || validate === undefined || unstorable !== null || !validate(args)) {
        const problems =
          args === undefined
            ? ["edited_args: required for edit"]
            : unstorable !== null
              ? [`${unstorable}: contains a NUL character or an unpaired surrogate`]
              : formatProblems(validate?.errors);
        return { ok: false, why: "invalid_edit", message: `edited arguments are invalid: ${problems.join("; ")}` };
      }
      edited = { args, fingerprint: fingerprint(current.tenant, current.tool, args, tool?.fingerprint ?? []) };
    }
    const versions = versionsOf(deps.policy);
    const demand = await demandOf(deps.store, approvalId);
    const quorum = effectiveApproval(tool?.approval, demand).quorum;
    const voting = verdict === null && quorum !== null && decision === "approve";
    const plan = planDecision(current, await decisionRequest(deps, current, decision, verdict === null ? approver.user : null, voting), verdict, now);
    if (!plan.ok) return plan;
    const event: ApprovalEvent = {
      approval_id: approvalId,
      decision,
      approver: approver.user,
      approver_roles: [...approver.roles],
      reason: reason ?? null,
      edited_args: edited?.args ?? null,
      decided_at_ms: now,
      policy_version: versions.version,
      policy_code_version: versions.code_version,
      policy_data_version: versions.data_version,
    };
    const warningsOf = async (): Promise<string[]> =>
      decision === "approve" || decision === "edit"
        ? [...versionWarnings(deps.policy, current), ...currentPolicyWarnings(deps.policy, await deps.store.getCurrentPolicy(deps.manifest.policy.entrypoint))]
        : [];
    if (plan.kind === "vote" && quorum !== null) {
      const voted = await vote(deps, current, quorum, event);
      return voted.ok ? { ok: true, approval: voted.approval, warnings: await warningsOf(), quorum: voted.quorum } : voted;
    }
    const result = await deps.store.decideApproval(event);
    if (!result.ok && result.why === "already_executed") {
      return { ok: false, why: "already_executed", message: alreadyExecutedText(current, result.outcome), outcome: result.outcome };
    }
    if (!result.ok) return { ok: false, why: result.why, message: decisionRefusalText(approvalId, result.why) };
    const warnings = await warningsOf();
    if (edited === null) return { ok: true, approval: result.approval, warnings };
    // The edit's own approval: same scope, expiry and demand, new arguments, approved by the editor.
    const nextId = `apr_${randomUUID()}`;
    if (demand !== null) await deps.store.setApprovalRequirement({ ...demand, approval_id: nextId });
    rememberDemand(deps.store, nextId, demand === null ? null : { ...demand, approval_id: nextId });
    const next = await deps.store.createApproval({
      id: nextId,
      tenant: current.tenant,
      run_id: current.run_id,
      requested_by: current.requested_by,
      tool: current.tool,
      args: edited.args,
      preview: pickFields(edited.args, tool?.approval?.preview ?? tool?.fingerprint ?? []),
      fingerprint: edited.fingerprint,
      args_hash: argsHash(current.tenant, current.tool, edited.args),
      // The edited call is a new operation: the original id is bound to the original arguments.
      operation_id: `op_${randomUUID()}`,
      created_at_ms: now,
      expires_at_ms: current.expires_at_ms,
      policy_version: versions.version,
      policy_code_version: versions.code_version,
      policy_data_version: versions.data_version,
    });
    const editorsApproval: ApprovalEvent = { ...event, approval_id: next.id, decision: "approve", edited_args: null, reason: `edit of ${approvalId}${reason === undefined ? "" : `: ${reason}`}` };
    if (quorum !== null) {
      // An edit starts a new quorum for the edited arguments: the editor's vote is its first.
      const voted = await vote(deps, next, quorum, editorsApproval);
      if (!voted.ok) return voted;
      return { ok: true, approval: result.approval, edited: { approval: voted.approval, tool: current.tool, args: edited.args, operation_id: next.operation_id ?? "" }, warnings, quorum: voted.quorum };
    }
    const approved = await deps.store.decideApproval(editorsApproval);
    if (!approved.ok) return { ok: false, why: approved.why === "already_executed" ? "already_decided" : approved.why, message: `edited approval cannot be recorded: ${approved.why}` };
    const operationId = approved.approval.operation_id ?? "";
    return { ok: true, approval: result.approval, edited: { approval: approved.approval, tool: current.tool, args: edited.args, operation_id: operationId }, warnings };
  };
  return {
    decide,
    // An id no store could hold (a NUL from a URL) is answered as absent, alike on every store.
    get: async (id) => (storableId(id) ? deps.store.getApproval(id) : null),
    events: async (id) => (storableId(id) ? deps.store.listApprovalEvents(id) : []),
  };
}
