/** The project's policy, compiled by our compiler, decides correctly through the opa-wasm SDK. */
import { readFileSync } from "node:fs";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { beforeAll, describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";

const ENTRY = "toolgate/authz/decision";
const base = {
  tool: "reserve_funds", effect: "reversible_write", args: { amount: 5 }, fingerprint: "fp", args_hash: "ah", operation_id: "op-1",
  principal: { tenant: "t1", user: "alice", roles: ["agent"] }, approval: null, now_ms: 1000, policy_version: "v1",
  policy_code_version: "c1", policy_data_version: "d1",
};
const approval = {
  id: "a1", tenant: "t1", tool: "reserve_funds", fingerprint: "fp", args_hash: "ah", operation_id: "op-1", decision: "approve",
  requested_by: "alice", approver: "bob", approver_roles: ["approver"], expires_at_ms: 2000, policy_version: "v1",
  policy_code_version: "c1", policy_data_version: "d1", consumed: false,
};

const rows: { note: string; input: unknown; reason: string; allow: boolean; ask?: boolean }[] = [
  { note: "read is allowed", input: { ...base, tool: "get_account", effect: "read" }, reason: "read_allowed", allow: true },
  { note: "write without approval asks", input: base, reason: "approval_required", allow: false, ask: true },
  { note: "write with matching approval", input: { ...base, approval }, reason: "approved", allow: true },
  { note: "approval for another fingerprint", input: { ...base, approval: { ...approval, fingerprint: "other" } }, reason: "approval_fingerprint_mismatch", allow: false },
  { note: "approval of another tenant", input: { ...base, approval: { ...approval, tenant: "t2" } }, reason: "approval_tenant_mismatch", allow: false },
  { note: "expired approval", input: { ...base, now_ms: 2000, approval }, reason: "approval_expired", allow: false },
  { note: "policy changed", input: { ...base, approval: { ...approval, policy_version: "v0", policy_code_version: "c0" } }, reason: "approval_policy_changed", allow: false },
  { note: "pending approval", input: { ...base, approval: { ...approval, decision: null } }, reason: "approval_pending", allow: false, ask: true },
  { note: "destructive is denied even approved", input: { ...base, effect: "destructive", approval }, reason: "destructive_denied", allow: false },
  { note: "limit exceeded", input: { ...base, args: { amount: 1000001 }, approval }, reason: "limit_exceeded", allow: false },
  { note: "viewer may not write", input: { ...base, principal: { ...base.principal, roles: ["viewer"] } }, reason: "role_not_permitted", allow: false },
  { note: "malformed input", input: { tool: 1 }, reason: "input_malformed", allow: false },
  { note: "unknown effect", input: { ...base, effect: "teleport" }, reason: "unknown_effect", allow: false },
];

describe("policies/authz.rego through the SDK", () => {
  let evaluate: (input: unknown) => unknown;
  beforeAll(async () => {
    const out = compilePolicy({ modules: [{ file: "policies/authz.rego", source: readFileSync("policies/authz.rego", "utf8") }], entrypoints: [ENTRY] });
    expect(out.errors).toEqual([]);
    const policy = await loadPolicy(out.wasm!);
    policy.setData(JSON.parse(readFileSync("policies/data.json", "utf8")) as object);
    evaluate = (input) => policy.evaluate(input, ENTRY);
  });
  for (const r of rows) {
    it(r.note, () => {
      expect(evaluate(r.input)).toEqual([{ result: { allow: r.allow, reason: r.reason, requires_approval: r.ask === true } }]);
    });
  }
  it("no input fails closed", () => {
    expect(evaluate(undefined)).toEqual([{ result: { allow: false, reason: "input_malformed", requires_approval: false } }]);
  });
});
