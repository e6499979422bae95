/** Decision explanations: every rule's value for one input, against the shipped policy and a fixture. */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { compileExplainer, explainPolicy, queryText } from "../../codegen/compiler/explain.js";
import type { Explainer, Explanation, RuleOutcome } from "../../codegen/compiler/explain.js";
import { formatExplanation } from "../../codegen/compiler/explain-format.js";

const source = (file: string): { file: string; source: string } => ({ file, source: readFileSync(file, "utf8") });
const FX = "test/explain/fixture/fx.rego";
const AUTHZ = "policies/authz.rego";

async function explainer(file: string, query: string): Promise<Explainer> {
  const ex = await compileExplainer({ modules: [source(file)], query });
  if ("errors" in ex) throw new Error(ex.errors.map((e) => e.message).join("\n"));
  return ex;
}

/** path -> outcome, for exact comparisons. */
const outcomes = (e: Explanation): Record<string, RuleOutcome> => Object.fromEntries(e.rules.map((r) => [r.path, r.outcome]));
const value = (v: unknown): RuleOutcome => ({ status: "value", value: v });
const UNDEF: RuleOutcome = { status: "undefined" };

describe("explain: fixture", () => {
  let fx: Explainer;
  beforeAll(async () => {
    fx = await explainer(FX, "data.fx.allow");
  }, 180_000);

  it("lists every rule: queried and dependencies first, then the rest, each in source order, with kinds and definition rows", () => {
    const e = fx.explain({ input: {}, data: {} });
    expect(e.rules.map((r) => [r.role, r.path, r.kind, r.locations.map((l) => `${l.file}:${l.row}`).join(" ")])).toEqual([
      ["query", "data.fx.allow", "complete", `${FX}:6 ${FX}:8`],
      ["dependency", "data.fx.names", "partial_set", `${FX}:13`],
      ["dependency", "data.fx.blocked", "complete", `${FX}:15`],
      ["dependency", "data.fx.over_limit", "function", `${FX}:17`],
      ["dependency", "data.fx.limits", "partial_object", `${FX}:19`],
      ["other", "data.fx.unrelated", "complete", `${FX}:21`],
      ["other", "data.fx.missing", "complete", `${FX}:23`],
      ["other", "data.fx.conflict", "complete", `${FX}:25 ${FX}:27`],
      ["other", "data.fx.settings", "ref_value", `${FX}:29`],
    ]);
  });

  const cases: { note: string; input: unknown; data: unknown; want: Record<string, RuleOutcome> }[] = [
    {
      note: "allowed: users present, spent under the limit; conflicting outputs are an error",
      input: { users: ["bob", "alice"], user: "alice", spent: { alice: 5 }, a: 1, b: 2, features: ["x"] },
      data: { limits: { alice: 10 } },
      want: {
        "data.fx.allow": value(true),
        "data.fx.names": value(["alice", "bob"]),
        "data.fx.blocked": UNDEF,
        "data.fx.over_limit": { status: "not_evaluated", why: "function of 1 argument" },
        "data.fx.limits": value({ alice: 10 }),
        "data.fx.unrelated": value(42),
        "data.fx.missing": UNDEF,
        "data.fx.settings": value({ x: { enabled: true } }),
      },
    },
    {
      note: "blocked: over the limit, so the default applies; equal outputs are no conflict",
      input: { users: ["alice"], user: "alice", spent: { alice: 50 }, a: 3, b: 3 },
      data: { limits: { alice: 10, bob: 1 } },
      want: {
        "data.fx.allow": value(false),
        "data.fx.names": value(["alice"]),
        "data.fx.blocked": value(true),
        "data.fx.limits": value({ alice: 10, bob: 1 }),
        "data.fx.conflict": value(3),
        // A ref-head prefix is a virtual document: empty, not undefined, without contributions.
        "data.fx.settings": value({}),
      },
    },
    {
      note: "no input at all: only constants and defaults are defined",
      input: undefined,
      data: {},
      want: { "data.fx.allow": value(false), "data.fx.names": value([]), "data.fx.limits": value({}), "data.fx.unrelated": value(42), "data.fx.conflict": UNDEF, "data.fx.blocked": UNDEF },
    },
  ];
  for (const c of cases) {
    it(c.note, () => {
      expect(outcomes(fx.explain({ input: c.input, data: c.data }))).toMatchObject(c.want);
    });
  }

  it("an erroring rule is an error outcome, and the other rules still have values", () => {
    const o = outcomes(fx.explain({ input: { a: 1, b: 2 }, data: {} }));
    expect(o["data.fx.conflict"]).toEqual({ status: "error", message: expect.stringMatching(/^test\/explain\/fixture\/fx\.rego:\d+:\d+: eval_conflict_error: complete rules must not produce multiple outputs$/) });
    expect(o["data.fx.unrelated"]).toEqual(value(42));
  });

  it("the table marks roles and shows values, undefined, errors and unevaluated functions", () => {
    const text = formatExplanation(fx.explain({ input: { users: ["a"], a: 1, b: 2 }, data: {} }));
    const row = (path: string): string => text.split("\n").find((l) => l.slice(2).startsWith(`${path} `)) ?? "";
    expect(row("data.fx.allow")).toMatch(/^\* data\.fx\.allow +complete +test\/explain\/fixture\/fx\.rego:6,8 +true  <- body \(test\/explain\/fixture\/fx\.rego:8\)$/);
    expect(row("data.fx.names")).toMatch(/^\+ data\.fx\.names +partial_set +\S+:13 +\["a"\]$/);
    expect(row("data.fx.missing")).toMatch(/^ {2}data\.fx\.missing +complete +\S+:23 +undefined$/);
    expect(row("data.fx.conflict")).toMatch(/error: .*eval_conflict_error/);
    expect(row("data.fx.over_limit")).toMatch(/\(not evaluated: function of 1 argument\)$/);
    expect(text).toContain("* queried (1)  + the query depends on it (4)  other rules: 4");
  });

  it("a query naming a package depends on every rule in it; an unrelated query on none of them", async () => {
    const pkg = await explainPolicy({ modules: [source(FX)], query: "data.fx", input: {} });
    expect(pkg.rules.every((r) => r.role === "query")).toBe(true);
    const other = await explainPolicy({ modules: [source(FX)], query: "x := data.fx.unrelated + 1", input: {} });
    expect(other.rules.filter((r) => r.role !== "other").map((r) => [r.role, r.path])).toEqual([["query", "data.fx.unrelated"]]);
  }, 180_000);
});

describe("explain: shipped policy", () => {
  let authz: Explainer;
  const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as unknown;
  beforeAll(async () => {
    authz = await explainer(AUTHZ, "toolgate/authz/decision");
  }, 180_000);

  const call = {
    tool: "reserve_funds", effect: "reversible_write", args: { amount: 10 }, fingerprint: "fp", args_hash: "ah", operation_id: "op-1",
    principal: { tenant: "t1", user: "alice", roles: ["agent"] }, approval: null, now_ms: 1_000, policy_version: "v1",
    policy_code_version: "c1", policy_data_version: "d1",
  };
  const approval = { id: "apr_1", tenant: "t1", tool: "reserve_funds", fingerprint: "fp", args_hash: "ah", operation_id: "op-1", decision: "approve", requested_by: "alice", approver: "bob", approver_roles: [], expires_at_ms: 2_000, policy_version: "v1", policy_code_version: "c1", policy_data_version: "d1", consumed: false };
  const decision = (allow: boolean, reason: string, requires_approval = false): RuleOutcome => value({ allow, reason, requires_approval });

  const cases: { note: string; input: unknown; data?: unknown; want: Record<string, RuleOutcome> }[] = [
    {
      note: "a write without approval requires one",
      input: call,
      want: {
        "data.toolgate.authz.decision": decision(false, "approval_required", true),
        "data.toolgate.authz.effects": value(["destructive", "external_write", "read", "reversible_write"]),
        "data.toolgate.authz.well_formed": value(true),
        "data.toolgate.authz.approval_well_formed": value(true),
        "data.toolgate.authz.approval_mismatch": UNDEF,
        "data.toolgate.authz.roles_enforced": value(true),
        "data.toolgate.authz.role_permits": value(true),
        "data.toolgate.authz.exceeds_limit": UNDEF,
      },
    },
    {
      note: "an approval from another tenant: approval_mismatch names the reason the decision carries",
      input: { ...call, approval: { ...approval, tenant: "t2" } },
      want: { "data.toolgate.authz.decision": decision(false, "approval_tenant_mismatch"), "data.toolgate.authz.approval_mismatch": value("approval_tenant_mismatch") },
    },
    {
      note: "a matching approval allows",
      input: { ...call, approval },
      want: { "data.toolgate.authz.decision": decision(true, "approved"), "data.toolgate.authz.approval_mismatch": UNDEF },
    },
    {
      note: "over the data limit",
      input: { ...call, args: { amount: 1_000_001 } },
      want: { "data.toolgate.authz.decision": decision(false, "limit_exceeded"), "data.toolgate.authz.exceeds_limit": value(true) },
    },
    {
      note: "malformed input, and no role data",
      input: { tool: "reserve_funds" },
      data: {},
      want: {
        "data.toolgate.authz.decision": decision(false, "input_malformed"),
        "data.toolgate.authz.well_formed": UNDEF,
        "data.toolgate.authz.roles_enforced": UNDEF,
        "data.toolgate.authz.role_permits": UNDEF,
      },
    },
  ];
  for (const c of cases) {
    it(c.note, () => {
      expect(outcomes(authz.explain({ input: c.input, data: c.data ?? data }))).toMatchObject(c.want);
    });
  }

  it("every rule of the policy is the decision or one of its dependencies; functions are not evaluated", () => {
    const e = authz.explain({ input: call, data });
    const rowOf = (head: string) => readFileSync(AUTHZ, "utf8").split("\n").findIndex((l) => l.startsWith(head)) + 1;
    expect(e.rules[0]).toMatchObject({ path: "data.toolgate.authz.decision", role: "query", locations: [{ file: AUTHZ, row: rowOf("default decision") }, { file: AUTHZ, row: rowOf("decision := ") }] });
    expect(e.rules.slice(1).every((r) => r.role === "dependency")).toBe(true);
    expect(e.rules.filter((r) => r.kind === "function").map((r) => [r.path.split(".").at(-1), r.outcome.status])).toEqual([
      ["allow", "not_evaluated"], ["deny", "not_evaluated"], ["ask", "not_evaluated"], ["string_or_null", "not_evaluated"],
    ]);
    expect(e.rules).toHaveLength(12);
  });
});

describe("explain: inputs it rejects", () => {
  it("queryText turns an entrypoint path into a data ref and leaves queries alone", () => {
    expect(queryText("toolgate/authz/decision")).toBe("data.toolgate.authz.decision");
    expect(queryText("data.x.p")).toBe("data.x.p");
    expect(queryText("x := 1")).toBe("x := 1");
  });

  it("a module that does not compile gives located errors and no rules", async () => {
    const e = await explainPolicy({ modules: [{ file: "bad.rego", source: "package bad\np := q\n" }], query: "data.bad.p" });
    expect(e.rules).toEqual([]);
    expect(e.errors[0]).toMatchObject({ code: "rego_unsafe_var_error", location: { file: "bad.rego", row: 2 } });
  });

  it("a query that does not parse gives a parse error", async () => {
    const e = await explainPolicy({ modules: [source(FX)], query: "data.fx.[" });
    expect(e.errors[0]).toMatchObject({ code: "rego_parse_error" });
  });
});
