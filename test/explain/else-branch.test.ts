/** Decision explanations name the branch that decided a rule with an `else` chain or a default (from the compiler's coverage head points). */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { compileExplainer } from "../../codegen/compiler/explain.js";
import type { Explainer } from "../../codegen/compiler/explain.js";
import { formatExplanation } from "../../codegen/compiler/explain-format.js";

const AUTHZ = "policies/authz.rego";
const source = readFileSync(AUTHZ, "utf8");
const rowOf = (text: string): number => {
  const i = source.split("\n").findIndex((l) => l.includes(text));
  if (i < 0) throw new Error(`${AUTHZ} has no line with ${text}`);
  return i + 1;
};
const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as unknown;
const base = {
  tool: "get_account",
  effect: "read",
  args: { account_id: "acc_a" },
  fingerprint: "f",
  args_hash: "h",
  operation_id: null,
  principal: { tenant: "t", user: "u", roles: ["agent"] },
  context: {},
  approval: null,
  now_ms: 1,
  policy_version: "v",
  policy_code_version: "c",
  policy_data_version: "d",
};
const approval = {
  id: "a", tenant: "t", tool: "reserve_funds", fingerprint: "f", args_hash: "h", operation_id: "op", decision: "approve",
  requested_by: "u", approver: "b", approver_roles: [], expires_at_ms: 10, policy_version: "v", policy_code_version: "c",
  policy_data_version: "d", consumed: false,
};

describe("explain: the deciding branch", () => {
  let ex: Explainer;
  beforeAll(async () => {
    const c = await compileExplainer({ modules: [{ file: AUTHZ, source }], query: "data.toolgate.authz.decision" });
    if ("errors" in c) throw new Error(c.errors.map((e) => e.message).join("\n"));
    ex = c;
  }, 180_000);
  const branch = (input: unknown, path = "data.toolgate.authz.decision") => ex.explain({ input, data }).rules.find((r) => r.path === path)?.branch;

  it("the rule's own body, the k-th else, or the default", () => {
    expect(branch({ ...base, tool: 7 })).toEqual({ kind: "body", else_index: 0, location: expect.objectContaining({ file: AUTHZ, row: rowOf("decision := deny(\"input_malformed\")") }) });
    expect(branch({ ...base, effect: "destructive" })).toEqual({ kind: "else", else_index: 2, location: expect.objectContaining({ file: AUTHZ, row: rowOf('else := deny("destructive_denied")') }) });
    expect(branch(base)).toMatchObject({ kind: "else", else_index: 5, location: { row: rowOf('else := allow("read_allowed")') } });
    const write = { ...base, tool: "reserve_funds", effect: "reversible_write", operation_id: "op" };
    expect(branch(write)).toMatchObject({ kind: "else", location: { row: rowOf('else := ask("approval_required")') } });
    expect(branch({ ...write, approval })).toMatchObject({ kind: "else", location: { row: rowOf('else := allow("approved")') } });
    // A decision the chain does not cover falls to the default.
    expect(branch({ ...write, approval: { ...approval, decision: "shrug" } })).toMatchObject({ kind: "default", location: { row: rowOf("default decision :=") } });
  });

  it("dependencies with their own else chain get theirs; rules without else or default get none; undefined has none", () => {
    const write = { ...base, tool: "reserve_funds", effect: "reversible_write", operation_id: "op", approval: { ...approval, tool: "other" } };
    expect(branch(write, "data.toolgate.authz.approval_mismatch")).toMatchObject({ kind: "else", else_index: 1, location: { row: rowOf(':= "approval_tool_mismatch"') } });
    expect(branch(base, "data.toolgate.authz.approval_mismatch")).toBeUndefined();
    expect(branch(base, "data.toolgate.authz.well_formed")).toBeUndefined();
  });

  it("the table shows the branch after the value", () => {
    const table = formatExplanation(ex.explain({ input: { ...base, effect: "destructive" }, data }));
    expect(table).toContain(`"destructive_denied","requires_approval":false}  <- else #2 (${AUTHZ}:${rowOf('else := deny("destructive_denied")')})`);
  });
});
