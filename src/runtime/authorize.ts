/**
 * authorize: re-read the authoritative state (interrupt flag, idempotency record,
 * approval record; for a call that claims first, together with its fresh claim), then ask
 * the policy. Deny -> policy_denied with the policy's
 * reason; approval needed -> a durable pending approval and approval_required.
 * Enters: a PreparedCall. Leaves: the allow decision, or an envelope.
 */
import type { ApprovalRecord, CallState, OperationRecord } from "../store/store.js";
import type { PolicyApprovalInput, PolicyDecision, PolicyInput } from "../policy/engine.js";
import { BUDGET_EXCEEDED } from "../policy/budget.js";
import { EVALUATION_ERROR } from "../policy/engine.js";
import { versionsOf } from "../policy/version.js";
import { bindingProblem, callArgsHash, usedUp } from "../approvals/binding.js";
import { requestApproval } from "../approvals/request.js";
import { resolveContext } from "./context.js";
import type { HeldClaim } from "./held-claim.js";
import { terminal } from "./envelope.js";
import { evaluatePolicy } from "./evaluation.js";
import type { Evaluation } from "./evaluation.js";
import { answerFromRecord } from "./idempotency.js";
import { callLimits, readFigures } from "./limit-figures.js";
import type { Figures } from "./limit-figures.js";
import { readRun } from "./run-history.js";
import { quoteJson } from "../call-data/limits.js";
import { answer, proceed } from "./phase.js";
import type { Authorized, Step } from "./phase.js";
import type { PreparedCall, RuntimeDeps } from "./types.js";

/** `consumed`: used up for this call (see approval-binding.ts `usedUp`). */
export function approvalInput(a: ApprovalRecord, consumed: boolean): PolicyApprovalInput {
  return {
    id: a.id,
    tenant: a.tenant,
    tool: a.tool,
    fingerprint: a.fingerprint,
    args_hash: a.args_hash,
    operation_id: a.operation_id,
    decision: a.decision?.decision ?? null,
    requested_by: a.requested_by,
    approver: a.decision?.approver ?? null,
    approver_roles: [...(a.decision?.approver_roles ?? [])],
    expires_at_ms: a.expires_at_ms,
    policy_version: a.decision?.policy_version ?? a.policy_version,
    policy_code_version: a.decision?.policy_code_version ?? a.policy_code_version,
    policy_data_version: a.decision?.policy_data_version ?? a.policy_data_version,
    consumed,
  };
}

/**
 * `held`: the call claims first (held-claim.ts): the state is read with the fresh guarded claim.
 * Giving the claim back after an answer here (or a throw) is the caller's: HeldClaim.release.
 */
export async function authorize(deps: RuntimeDeps, call: PreparedCall, held: HeldClaim | null = null): Promise<Step<Authorized>> {
  const { ctx, tool } = call;
  const now = deps.clock.now();
  // One read of what the decision depends on. A read has no effect to stop: invoke's check
  // right before the handler is its one read of the interrupt flag (for a claimed read, the claim's guard).
  const interrupt = tool.effect !== "read";
  const state: CallState & { readonly figures?: Figures } =
    held !== null && call.operation_id !== null
      ? await held.claim(deps, call, call.operation_id, interrupt, now)
      : call.operation_id === null && call.approval_id === null && !interrupt
        ? { operation: null, interrupt: null, approval: null }
        : await deps.store.readCallState({ tenant: ctx.tenant, run_id: ctx.run_id, operation_id: call.operation_id, approval_id: call.approval_id, interrupt, now_ms: now });
  const record = state.operation;
  if (call.operation_id !== null) {
    const known = answerFromRecord(record, { tool: tool.name, fingerprint: call.operation_fingerprint, operation_id: call.operation_id });
    if (known !== null) return answer(known, { reason: known.outcome === "terminal_failure" ? known.reason : "replayed" });
  }
  if (state.interrupt !== null) {
    return answer(terminal("interrupted", `run ${ctx.run_id} was interrupted: ${state.interrupt.reason}`), { reason: "interrupted" });
  }
  if (record !== null) {
    const unknownOutcome = record.status === "unknown" || (record.status === "in_progress" && record.lease_expires_at_ms <= now);
    if (unknownOutcome && deps.reconcilers[tool.name] !== undefined) {
      return proceed({ decision: "not_evaluated", reason: "reconcile_first", policy_version: null, approval_id: null, deferred: true });
    }
  }
  return await decide(deps, call, now, { approval: state.approval, record, ...(state.figures === undefined ? {} : { figures: state.figures }) });
}

/** State already read for this decision (authorize's one read); absent, decide reads what it needs. */
export interface ReadState {
  readonly approval: ApprovalRecord | null;
  readonly record: OperationRecord | null;
  /** The limits' figures read with claim-first (the claim holds them until it commits). */
  readonly figures?: Figures;
}

const denied = (version: string, reason: string, message: string): Step<Authorized> =>
  answer(terminal("policy_denied", message), { decision: "deny", reason, policy_version: version });

/** The runtime's rule after the policy answered (logged with its evaluation): a destructive tool never runs. */
function destructiveDenied(call: PreparedCall, version: string, evaluation: Evaluation): Step<Authorized> {
  const policy = `${evaluation.result.allow ? "allow" : evaluation.result.requires_approval ? "approval required" : "deny"}, ${evaluation.result.reason}`;
  const message = `${call.tool.name} is a destructive tool (tools.yaml effect: destructive): the gate never runs it, whatever the policy answers (here: ${policy}) or an approval says; nothing ran`;
  return answer(terminal("destructive_denied", message, call.operation_id === null ? {} : { operation_id: call.operation_id }), {
    decision: "deny",
    reason: "destructive_denied",
    policy_version: version,
    evaluation,
  });
}

/**
 * Why a presented approval of this tenant is not this principal's to use, or null. `principal`
 * binding (the default): requested in this call's run by its user. `tenant`: by anyone in the
 * tenant, except while the requesting run is interrupted.
 */
async function principalProblem(deps: RuntimeDeps, approval: ApprovalRecord, call: PreparedCall): Promise<{ reason: string; message: string } | null> {
  const { ctx } = call;
  if ((call.tool.approval?.binding ?? "principal") === "principal") {
    if (approval.requested_by === ctx.user && approval.run_id === ctx.run_id) return null;
    return {
      reason: "approval_principal_mismatch",
      message: `approval ${approval.id} was requested by another user or run and authorises only that principal's call (tools.yaml approval.binding: principal); request your own approval`,
    };
  }
  // Same run: the claim's guard checks this run's interrupt atomically.
  if (approval.run_id === ctx.run_id) return null;
  const interrupt = await deps.store.getInterrupt(approval.tenant, approval.run_id);
  if (interrupt === null) return null;
  return { reason: "approval_run_interrupted", message: `approval ${approval.id} belongs to an interrupted run and cannot be used by another run; nothing ran` };
}

/** Asks the policy about the call (with the approval it presents); approval_required creates a pending approval. */
export async function decide(deps: RuntimeDeps, call: PreparedCall, now: number, read?: ReadState): Promise<Step<Authorized>> {
  const { ctx, tool } = call;
  const versions = versionsOf(deps.policy);
  const version = versions.version;
  let approval: ApprovalRecord | null = null;
  if (call.approval_id !== null) {
    approval = read !== undefined ? read.approval : await deps.store.getApproval(call.approval_id);
    // Another tenant's approval is answered exactly as one that does not exist: the policy never
    // sees it, and the answer does not tell whether the id exists elsewhere.
    if (approval === null || approval.tenant !== ctx.tenant) {
      return denied(version, "approval_not_found", `approval ${call.approval_id} does not exist in tenant ${ctx.tenant}`);
    }
    // Another principal's approval never reaches the policy either.
    const notTheirs = await principalProblem(deps, approval, call);
    if (notTheirs !== null) return denied(version, notTheirs.reason, notTheirs.message);
  }
  // Facts from the host, fresh right before this decision; without them nothing is authorised.
  const facts = call.tool.context === undefined || call.tool.context.length === 0 ? { ok: true as const, context: {} } : await resolveContext(deps, call);
  if (!facts.ok) return answer(facts.envelope, { decision: "not_evaluated", reason: "context_unavailable", policy_version: version });
  const hash = callArgsHash(call);
  const limits = callLimits(deps.manifest, call);
  const figures = limits.length === 0 ? undefined : (read?.figures ?? (await readFigures(deps, call, limits, now)));
  const run = await readRun(deps, call);
  const usedUpNow = approval === null ? false : await usedUp(deps, approval, call, now, read?.record);
  const input: PolicyInput = {
    tool: tool.name,
    effect: tool.effect,
    args: call.args,
    fingerprint: call.fingerprint,
    args_hash: hash,
    operation_id: call.operation_id,
    principal: { tenant: ctx.tenant, user: ctx.user, roles: [...ctx.roles] },
    context: facts.context,
    approval: approval === null ? null : approvalInput(approval, usedUpNow),
    now_ms: now,
    policy_version: version,
    policy_code_version: versions.code_version,
    policy_data_version: versions.data_version,
    ...(figures === undefined ? {} : { limits: figures }),
    ...(run === undefined ? {} : { run }),
  };
  const evaluation = await evaluatePolicy(deps, input);
  // Whatever the policy answered (allow, or asking for an approval that could never be used).
  if (tool.effect === "destructive") return destructiveDenied(call, version, evaluation);
  const decision = evaluation.result;
  if (decision.allow && approval !== null) {
    // The runtime's own check, whatever the policy said: it can deny more, never allow more.
    const problem = await bindingProblem(deps, approval, call, now, { args_hash: hash, used_up: usedUpNow });
    if (problem !== null) {
      return denied(version, problem, `approval ${approval.id} does not authorise this call of ${tool.name}: ${problem} (the policy allowed it; the runtime does not)`);
    }
  }
  if (decision.allow) {
    const relied = approval !== null && approval.status === "approved" ? approval.id : null;
    return proceed({ decision: "allow", reason: decision.reason, policy_version: version, approval_id: relied, deferred: false, evaluation, context: facts.context, ...(figures === undefined ? {} : { limits: figures }) });
  }
  if (decision.requires_approval) {
    const pending = await requestApproval(deps, call, now, decision.approval_demand);
    return answer(
      terminal(
        "approval_required",
        `${tool.name} needs a human approval (policy: ${decision.reason}) of ${quoteJson(pending.preview, 500)} (approval ${pending.id}, expires ${new Date(pending.expires_at_ms).toISOString()}); call again with approval_id once approved`,
        { approval_id: pending.id, ...(call.operation_id === null ? {} : { operation_id: call.operation_id }) },
      ),
      { decision: "approval_required", reason: decision.reason, policy_version: version, evaluation },
    );
  }
  if (decision.reason === BUDGET_EXCEEDED) {
    const message = `the policy's evaluation for ${tool.name} exceeded its step budget or deadline and was stopped; nothing ran`;
    return answer(terminal("policy_budget_exceeded", message), { decision: "deny", reason: decision.reason, policy_version: version, evaluation });
  }
  if (decision.reason === EVALUATION_ERROR) {
    // The error names what failed (e.g. the builtin), never its operands: see src/policy/strict-errors.ts.
    const message = `the policy's evaluation for ${tool.name} failed${decision.error === undefined ? "" : ` (${decision.error})`}; nothing ran`;
    return answer(terminal("policy_evaluation_error", message), { decision: "deny", reason: decision.reason, policy_version: version, evaluation });
  }
  return answer(terminal("policy_denied", `policy denied ${tool.name}: ${decision.reason}`), {
    decision: "deny",
    reason: decision.reason,
    policy_version: version,
    evaluation,
  });
}
