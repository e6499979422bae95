/**
 * policies/authz.rego written by hand in JavaScript: the benchmark's lower bound
 * (what a decision costs without any policy engine). Must decide exactly as the
 * Rego does; the benchmark checks it on every input before timing.
 */
import type { PolicyDecision } from "../../src/policy/engine.js";

export interface AuthzConfig {
  readonly limits?: Record<string, Record<string, { max: number }>>;
  readonly roles?: Record<string, { effects?: readonly string[]; tools?: readonly string[] }>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): boolean => typeof v === "string";
const strOrNull = (v: unknown): boolean => v === null || typeof v === "string";
const EFFECTS = new Set(["read", "reversible_write", "external_write", "destructive"]);

const allow = (reason: string): PolicyDecision => ({ allow: true, reason, requires_approval: false });
const deny = (reason: string): PolicyDecision => ({ allow: false, reason, requires_approval: false });
const ask = (reason: string): PolicyDecision => ({ allow: false, reason, requires_approval: true });

function wellFormed(i: Obj): boolean {
  const p = i.principal;
  if (!str(i.tool) || !str(i.effect) || !isObj(i.args) || !str(i.fingerprint) || !str(i.args_hash) || !strOrNull(i.operation_id)) return false;
  if (!isObj(p) || !str(p.tenant) || !str(p.user) || !Array.isArray(p.roles)) return false;
  if (typeof i.now_ms !== "number" || !str(i.policy_version) || !str(i.policy_code_version) || !str(i.policy_data_version)) return false;
  const a = i.approval;
  if (a === null) return true;
  return (
    isObj(a) && str(a.id) && str(a.tenant) && str(a.tool) && str(a.fingerprint) && str(a.args_hash) && strOrNull(a.operation_id) &&
    typeof a.expires_at_ms === "number" && str(a.policy_code_version) && typeof a.consumed === "boolean"
  );
}

/** Rego's cross-type order for `>` (null < boolean < number < string < array < object). */
function regoGreater(a: unknown, b: number): boolean {
  if (typeof a === "number") return a > b;
  return typeof a === "string" || (typeof a === "object" && a !== null);
}

export function makeReference(config: AuthzConfig): (input: unknown) => PolicyDecision {
  const roles = config.roles;
  const limits = config.limits;
  return (input) => {
    if (!isObj(input) || !wellFormed(input)) return deny("input_malformed");
    const effect = input.effect as string;
    const tool = input.tool as string;
    const principal = input.principal as Obj;
    if (!EFFECTS.has(effect)) return deny("unknown_effect");
    if (effect === "destructive") return deny("destructive_denied");
    if (roles !== undefined) {
      const permits = (principal.roles as unknown[]).some((r) => {
        const role = typeof r === "string" ? roles[r] : undefined;
        return role !== undefined && ((role.effects?.includes(effect) ?? false) || (role.tools?.includes(tool) ?? false));
      });
      if (!permits) return deny("role_not_permitted");
    }
    const toolLimits = limits?.[tool];
    if (toolLimits !== undefined) {
      const args = input.args as Obj;
      for (const [field, limit] of Object.entries(toolLimits)) {
        if (field in args && regoGreater(args[field], limit.max)) return deny("limit_exceeded");
      }
    }
    if (effect === "read") return allow("read_allowed");
    const a = input.approval as Obj | null;
    if (a === null) return ask("approval_required");
    if (a.tenant !== principal.tenant) return deny("approval_tenant_mismatch");
    if (a.tool !== tool) return deny("approval_tool_mismatch");
    if (a.fingerprint !== input.fingerprint) return deny("approval_fingerprint_mismatch");
    if (a.args_hash !== input.args_hash) return deny("approval_args_mismatch");
    if (a.operation_id !== input.operation_id) return deny("approval_operation_mismatch");
    if (a.policy_code_version !== input.policy_code_version) return deny("approval_policy_changed");
    if ((input.now_ms as number) >= (a.expires_at_ms as number)) return deny("approval_expired");
    if (a.consumed === true) return deny("approval_consumed");
    switch (a.decision) {
      case null: return ask("approval_pending");
      case "approve": return allow("approved");
      case "reject": return deny("approval_rejected");
      case "revoke": return deny("approval_revoked");
      case "edit": return deny("approval_edited");
      default: return deny("no_rule_matched");
    }
  };
}
