/**
 * The policy decision point the runtime asks right before an effect. The shipped
 * implementation evaluates the compiled policy.wasm (opa-wasm-engine.ts); tests of
 * single phases may pass a small in-memory engine.
 */
import type { Effect, JsonObject } from "../manifest.js";

/** What the authorize phase knows about the approval the caller presented (from the store, never from the model). */
export interface PolicyApprovalInput {
  readonly id: string;
  readonly tenant: string;
  readonly tool: string;
  readonly fingerprint: string;
  /** Hash of the complete arguments the approval was given for (see PolicyInput.args_hash). */
  readonly args_hash: string;
  /** The one operation the approval covers: an approval is for one call, not for every call with these arguments. */
  readonly operation_id: string | null;
  /** The latest decision ("approve" | "edit" | "reject" | "revoke"), or null while pending. */
  readonly decision: "approve" | "edit" | "reject" | "revoke" | null;
  /** The user on whose behalf the call was requested. */
  readonly requested_by: string;
  /** The deciding approver's user id and roles (from the host's authentication), or null while pending. */
  readonly approver: string | null;
  readonly approver_roles: readonly string[];
  readonly expires_at_ms: number;
  /** The policy version the decision was made under (the request's while pending). */
  readonly policy_version: string;
  /** Its code and data versions apart, so the policy decides which change voids the approval. */
  readonly policy_code_version: string;
  readonly policy_data_version: string;
  /** True once an operation committed under it (single use; the runtime refuses a second one). */
  readonly consumed: boolean;
}

export interface PolicyInput {
  readonly tool: string;
  readonly effect: Effect;
  readonly args: JsonObject;
  readonly fingerprint: string;
  /** Hex SHA-256 of the RFC 8785 JSON of tenant, tool and the complete arguments. */
  readonly args_hash: string;
  /** null only for reads called without one. */
  readonly operation_id: string | null;
  readonly principal: { readonly tenant: string; readonly user: string; readonly roles: readonly string[] };
  /** The tool's declared host facts (tools.yaml `context:`), resolved right before this decision; {} when none. */
  readonly context: JsonObject;
  readonly approval: PolicyApprovalInput | null;
  readonly now_ms: number;
  /** The policy in force (code and data), and its code and data versions apart. */
  readonly policy_version: string;
  readonly policy_code_version: string;
  readonly policy_data_version: string;
  /**
   * With tools.yaml `limits:`: each limit covering the tool, {count, sum} for this call's key over
   * the window before this call (calls that succeeded or are claimed and in flight).
   */
  readonly limits?: Readonly<Record<string, { readonly count: number; readonly sum: number }>>;
  /** With tools.yaml `run_history: true`: the earlier calls of the same run, oldest first (at most 50). */
  readonly run?: readonly PolicyRunEntry[];
}

/** One earlier call of the run, as `input.run` shows it. */
export interface PolicyRunEntry {
  readonly tool: string;
  readonly effect: Effect | null;
  /** The gate's decision: "allow", "deny", "approval_required" or "not_evaluated". */
  readonly decision: string;
  /** "success", "retryable_failure" or "terminal_failure". */
  readonly outcome: string;
  readonly reason: string | null;
  /** The tool declares sensitive fields (tools.yaml `sensitive:`). */
  readonly sensitive: boolean;
  readonly at_ms: number;
}

export interface PolicyDecision {
  readonly allow: boolean;
  /** Short snake_case reason ("read_allowed", "approval_expired", ...). */
  readonly reason: string;
  readonly requires_approval: boolean;
  /**
   * With requires_approval: what this call's approval needs beyond the tool's own
   * (`approvals_required`, `approval_roles`, `signed_approval` in the decision object); the
   * stricter of the two applies.
   */
  readonly approval_demand?: ApprovalDemand;
  /**
   * With reason `policy_evaluation_error`: what failed (`eval_builtin_error: to_number`,
   * see strict-errors.ts), for the decision log. Absent on every other decision.
   */
  readonly error?: string;
}

export interface ApprovalDemand {
  readonly quorum?: number;
  readonly quorum_roles?: readonly string[];
  readonly signed?: boolean;
}

/** The decision's approval demand; undefined when it has none, null when a field is malformed. */
function approvalDemand(r: Record<string, unknown>): ApprovalDemand | undefined | null {
  const { approvals_required: n, approval_roles: roles, signed_approval: signed } = r;
  if (n === undefined && roles === undefined && signed === undefined) return undefined;
  if (n !== undefined && !(typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 20)) return null;
  if (roles !== undefined && !(Array.isArray(roles) && roles.length <= 20 && roles.every((x) => typeof x === "string" && x !== ""))) return null;
  if (signed !== undefined && typeof signed !== "boolean") return null;
  return {
    ...(n === undefined ? {} : { quorum: n as number }),
    ...(roles === undefined ? {} : { quorum_roles: [...new Set(roles as string[])] }),
    ...(signed === undefined ? {} : { signed: signed as boolean }),
  };
}

export interface PolicyEngine {
  /** Identifies the exact policy (code and data) in force. */
  readonly version: string;
  /** The compiled code alone, and the data alone (see version.ts); without them `version` counts as code. */
  readonly code_version?: string;
  readonly data_version?: string;
  /** Never throws: an evaluation error or a malformed result is a deny. */
  evaluate(input: PolicyInput, options?: EvaluateOptions): Promise<PolicyDecision>;
}

export interface EvaluateOptions {
  /**
   * Steps this evaluation may take (loop iterations plus function calls; see budget.ts);
   * an evaluation that needs more is denied with `policy_budget_exceeded`. Default: the
   * engine's own budget. Engines without a step counter ignore it. Time in host
   * builtins is charged against it too (host-meter.ts).
   */
  readonly budget?: number;
  /**
   * Wall-clock milliseconds the evaluation may take, checked when each host builtin call
   * starts and returns (host-meter.ts); past it the evaluation is denied with
   * `policy_budget_exceeded`. Default: the engine's own deadline.
   */
  readonly deadlineMs?: number;
  /**
   * A builtin error anywhere in the evaluation denies with `policy_evaluation_error`
   * instead of making its expression undefined (OPA's default). Default: the engine's
   * own setting (off unless loaded with it).
   */
  readonly strictBuiltinErrors?: boolean;
}

/** Fails closed: returns a deny for anything that is not a well-formed decision object. */
export function toDecision(result: unknown): PolicyDecision {
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    return deny("policy_malformed_decision");
  }
  const r = result as Record<string, unknown>;
  if (typeof r.allow !== "boolean" || typeof r.requires_approval !== "boolean" || typeof r.reason !== "string") {
    return deny("policy_malformed_decision");
  }
  // An allow that also asks for approval is contradictory: do not guess, deny.
  if (r.allow && r.requires_approval) return deny("policy_malformed_decision");
  const demand = r.requires_approval ? approvalDemand(r) : undefined;
  if (demand === null) return deny("policy_malformed_decision");
  return demand === undefined ? { allow: r.allow, reason: r.reason, requires_approval: r.requires_approval } : { allow: r.allow, reason: r.reason, requires_approval: true, approval_demand: demand };
}

/** The reason of a decision whose evaluation failed (fail closed). */
export const EVALUATION_ERROR = "policy_evaluation_error";

export const deny = (reason: string, error?: string): PolicyDecision =>
  error === undefined ? { allow: false, reason, requires_approval: false } : { allow: false, reason, requires_approval: false, error };
