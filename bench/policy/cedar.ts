/**
 * policies/authz.rego as a pre-parsed Cedar policy set, for the benchmark's
 * comparison with @cedar-policy/cedar-wasm `statefulIsAuthorized`.
 *
 * Cedar answers allow/deny plus the ids of the policies that determined it; each
 * Rego reason is one Cedar policy whose id is the reason, and the else-chain's
 * "first reason wins" is the first determining id in REASON_ORDER. Rules after
 * `read_allowed` say `context.effect != "read"`, as a Cedar author would write
 * "writes need approval". The data-driven parts (roles, limits) are generated
 * from the same data.json. Differences (documented, not exercised by the inputs):
 * Cedar has no null (absent attributes stand for null), no cross-type `>`, and
 * no well-formedness check (a schema would do that before the call).
 */
import * as cedar from "@cedar-policy/cedar-wasm/nodejs";
import type { PolicyDecision, PolicyInput } from "../../src/policy/engine.js";
import type { AuthzConfig } from "../../test/helpers/policy-reference.js";

export const REASON_ORDER = [
  "unknown_effect", "destructive_denied", "role_not_permitted", "limit_exceeded", "read_allowed",
  "approval_required", "approval_tenant_mismatch", "approval_tool_mismatch", "approval_fingerprint_mismatch",
  "approval_args_mismatch", "approval_operation_mismatch", "approval_policy_changed", "approval_expired", "approval_consumed",
  "approval_pending",
  "approved", "approval_rejected", "approval_revoked", "approval_edited",
] as const;
const ASK = new Set(["approval_required", "approval_pending"]);
const RANK = new Map<string, number>(REASON_ORDER.map((r, i) => [r, i]));

const q = (s: string): string => JSON.stringify(s);
const set = (xs: readonly string[]): string => `[${xs.map(q).join(", ")}]`;

export function cedarPolicies(config: AuthzConfig): Record<string, string> {
  const all = "forbid (principal, action, resource)";
  const write = 'context.effect != "read" && context has approval';
  const a = "context.approval";
  const roleTerms = Object.entries(config.roles ?? {}).map(
    ([name, r]) => `(principal in Role::${q(name)} && (${set(r.effects ?? [])}.contains(context.effect) || ${set(r.tools ?? [])}.contains(context.tool)))`,
  );
  const limitTerms = Object.entries(config.limits ?? {}).flatMap(([tool, fields]) =>
    Object.entries(fields).map(([f, l]) => `(resource == Tool::${q(tool)} && context.args has ${f} && context.args.${f} > ${l.max})`),
  );
  const p: Record<string, string> = {
    unknown_effect: `${all} when { !${set(["read", "reversible_write", "external_write", "destructive"])}.contains(context.effect) };`,
    destructive_denied: `${all} when { context.effect == "destructive" };`,
    read_allowed: `permit (principal, action, resource) when { context.effect == "read" };`,
    approval_required: `${all} when { context.effect != "read" && !(context has approval) };`,
    approval_tenant_mismatch: `${all} when { ${write} && ${a}.tenant != context.tenant };`,
    approval_tool_mismatch: `${all} when { ${write} && ${a}.tool != context.tool };`,
    approval_fingerprint_mismatch: `${all} when { ${write} && ${a}.fingerprint != context.fingerprint };`,
    approval_operation_mismatch: `${all} when { ${write} && ((context has operation_id) != (${a} has operation_id) || (context has operation_id && ${a} has operation_id && ${a}.operation_id != context.operation_id)) };`,
    approval_args_mismatch: `${all} when { ${write} && ${a}.args_hash != context.args_hash };`,
    approval_policy_changed: `${all} when { ${write} && ${a}.policy_code_version != context.policy_code_version };`,
    approval_expired: `${all} when { ${write} && context.now_ms >= ${a}.expires_at_ms };`,
    approval_consumed: `${all} when { ${write} && ${a}.consumed };`,
    approval_pending: `${all} when { ${write} && !(${a} has decision) };`,
    approved: `permit (principal, action, resource) when { context has approval && ${a} has decision && ${a}.decision == "approve" };`,
    approval_rejected: `${all} when { ${write} && ${a} has decision && ${a}.decision == "reject" };`,
    approval_revoked: `${all} when { ${write} && ${a} has decision && ${a}.decision == "revoke" };`,
    approval_edited: `${all} when { ${write} && ${a} has decision && ${a}.decision == "edit" };`,
  };
  if (config.roles !== undefined) p.role_not_permitted = `${all} unless { ${roleTerms.join(" || ") || "false"} };`;
  if (limitTerms.length > 0) p.limit_exceeded = `${all} when { ${limitTerms.join(" || ")} };`;
  return p;
}

/** Null-free JSON (Cedar has no null: absent attribute = null). */
function dropNulls(o: Record<string, unknown>): Record<string, cedar.CedarValueJson> {
  const out: Record<string, cedar.CedarValueJson> = {};
  for (const [k, v] of Object.entries(o)) if (v !== null && v !== undefined) out[k] = v as cedar.CedarValueJson;
  return out;
}

export function cedarCall(input: PolicyInput, policySetId: string): cedar.StatefulAuthorizationCall {
  const context: Record<string, cedar.CedarValueJson> = dropNulls({
    tool: input.tool,
    effect: input.effect,
    args: input.args as cedar.CedarValueJson,
    fingerprint: input.fingerprint,
    args_hash: input.args_hash,
    operation_id: input.operation_id,
    tenant: input.principal.tenant,
    now_ms: input.now_ms,
    policy_version: input.policy_version,
    policy_code_version: input.policy_code_version,
    policy_data_version: input.policy_data_version,
  });
  if (input.approval !== null) context.approval = dropNulls({ ...input.approval });
  const user = { type: "User", id: input.principal.user };
  return {
    principal: user,
    action: { type: "Action", id: "call" },
    resource: { type: "Tool", id: input.tool },
    context,
    preparsedPolicySetId: policySetId,
    entities: [{ uid: user, attrs: {}, parents: input.principal.roles.map((r) => ({ type: "Role", id: r })) }],
  };
}

export function cedarDecision(answer: cedar.AuthorizationAnswer): PolicyDecision {
  if (answer.type !== "success") return { allow: false, reason: "policy_evaluation_error", requires_approval: false };
  const ids = answer.response.diagnostics.reason;
  let reason = "no_rule_matched";
  let best = Infinity;
  for (const id of ids) {
    const r = RANK.get(id) ?? Infinity;
    if (r < best) [best, reason] = [r, id];
  }
  const allow = answer.response.decision === "allow";
  return { allow, reason, requires_approval: !allow && ASK.has(reason) };
}

/** Pre-parses the set once; returns the decision function the benchmark times. */
export function makeCedar(config: AuthzConfig, policySetId = "toolgate_authz"): (input: PolicyInput) => PolicyDecision {
  const parsed = cedar.preparsePolicySet(policySetId, { staticPolicies: cedarPolicies(config) });
  if (parsed.type !== "success") throw new Error(`cedar policy set does not parse: ${JSON.stringify(parsed.errors)}`);
  return (input) => cedarDecision(cedar.statefulIsAuthorized(cedarCall(input, policySetId)));
}
