/**
 * The policy the worker processes use: the shipped policy's approval rule
 * (policies/authz.rego) restated in TypeScript, because these tests are about the
 * store's guarantees across processes, not about policy evaluation (the runtime
 * and policy suites run the compiled policy). Reads are allowed; writes need an
 * approval for the same tenant, tool and fingerprint, decided "approve",
 * unexpired and under the current policy version; destructive is denied.
 */
import type { PolicyDecision, PolicyEngine, PolicyInput } from "../../src/policy/engine.js";

const allow = (reason: string): PolicyDecision => ({ allow: true, reason, requires_approval: false });
const deny = (reason: string): PolicyDecision => ({ allow: false, reason, requires_approval: false });
const ask = (reason: string): PolicyDecision => ({ allow: false, reason, requires_approval: true });

export function approvalRulePolicy(version = "pv-workers"): PolicyEngine {
  return {
    version,
    async evaluate(input: PolicyInput): Promise<PolicyDecision> {
      if (input.effect === "destructive") return deny("destructive_denied");
      if (input.effect === "read") return allow("read_allowed");
      const a = input.approval;
      if (a === null) return ask("approval_required");
      if (a.tenant !== input.principal.tenant || a.tool !== input.tool || a.fingerprint !== input.fingerprint) {
        return deny("approval_mismatch");
      }
      if (a.expires_at_ms <= input.now_ms) return deny("approval_expired");
      if (a.policy_version !== input.policy_version) return deny("approval_policy_changed");
      if (a.decision === null) return ask("approval_pending");
      const denied = { reject: "approval_rejected", edit: "approval_edited", revoke: "approval_revoked" } as const;
      return a.decision === "approve" ? allow("approved") : deny(denied[a.decision]);
    },
  };
}
