/**
 * A deterministic set of policy inputs for policies/authz.rego covering every
 * decision reason (each effect, role, limit, approval state and mismatch), shared
 * by the decision-speed benchmark and the fast-engine equivalence test.
 */
import type { PolicyInput } from "../../src/policy/engine.js";
import { mulberry32 } from "./prng.js";

const TOOLS: readonly [string, PolicyInput["effect"] | "unknown"][] = [
  ["get_account", "read"],
  ["reserve_funds", "reversible_write"],
  ["confirm_transfer", "external_write"],
  ["send_notification", "external_write"],
  ["close_account", "destructive"],
  ["mystery_tool", "unknown"],
];
const ROLES: readonly (readonly string[])[] = [["agent"], ["agent"], ["agent"], ["viewer"], ["notifier"], [], ["auditor"], ["viewer", "notifier"]];
const APPROVAL_KINDS = ["none", "pending", "approve", "reject", "revoke", "edit", "tenant", "tool", "fingerprint", "args", "operation", "policy", "data", "expired", "consumed"] as const;

const NOW = 1_700_000_000_000;
const VERSION = "sha256:0123456789abcdef0123456789abcdef";
const CODE_VERSION = "sha256:c0de0000000000000000000000000000";
const DATA_VERSION = "sha256:da7a0000000000000000000000000000";

/** Well-formed inputs (what the runtime builds); `count` of them, seeded. */
export function policyInputs(count = 512, seed = 42): PolicyInput[] {
  const r = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out: PolicyInput[] = [];
  for (let i = 0; i < count; i++) {
    const [tool, effect] = pick(TOOLS);
    const tenant = pick(["t1", "t2"]);
    const operation_id = r() < 0.2 ? null : `op_${Math.floor(r() * 1000)}`;
    const fingerprint = `fp_${Math.floor(r() * 1e6).toString(16)}`;
    const args_hash = `ah_${Math.floor(r() * 1e6).toString(16)}`;
    const amount = pick([1, 500, 1_000_000, 1_000_001, 25_000_000]);
    const kind = pick(APPROVAL_KINDS);
    const approval =
      kind === "none"
        ? null
        : {
            id: `apr_${i}`,
            tenant: kind === "tenant" ? "other" : tenant,
            tool: kind === "tool" ? "other_tool" : tool,
            fingerprint: kind === "fingerprint" ? "fp_other" : fingerprint,
            args_hash: kind === "args" ? "ah_other" : args_hash,
            operation_id: kind === "operation" ? "op_other" : operation_id,
            decision: kind === "pending" ? null : kind === "approve" || kind === "reject" || kind === "revoke" || kind === "edit" ? kind : "approve",
            requested_by: "alice",
            approver: kind === "pending" ? null : "bob",
            approver_roles: kind === "pending" ? [] : ["approver"],
            expires_at_ms: kind === "expired" ? NOW - 1 : NOW + 60_000,
            policy_version: kind === "policy" || kind === "data" ? "sha256:old" : VERSION,
            policy_code_version: kind === "policy" ? "sha256:oldcode" : CODE_VERSION,
            policy_data_version: kind === "data" ? "sha256:olddata" : DATA_VERSION,
            consumed: kind === "consumed",
          };
    out.push({
      tool,
      effect: effect as PolicyInput["effect"],
      args: tool === "get_account" ? { account_id: "acc_1" } : { account_id: "acc_1", amount, currency: "EUR", recipient: "acc_2" },
      fingerprint,
      args_hash,
      operation_id,
      principal: { tenant, user: pick(["alice", "carol"]), roles: pick(ROLES) },
      context: {},
      approval: approval as PolicyInput["approval"],
      now_ms: NOW,
      policy_version: VERSION,
      policy_code_version: CODE_VERSION,
      policy_data_version: DATA_VERSION,
    });
  }
  return out;
}

/** Malformed variants (for equivalence tests; the runtime never builds these). */
export function malformedInputs(): unknown[] {
  const base = policyInputs(1, 7)[0]!;
  return [
    { ...base, tool: 1 },
    { ...base, args: [] },
    { ...base, principal: { ...base.principal, roles: "agent" } },
    { ...base, now_ms: "now" },
    { ...base, operation_id: 5 },
    { ...base, approval: { id: "a" } },
    (({ fingerprint: _f, ...rest }) => rest)(base),
    {},
    null,
    [],
  ];
}
