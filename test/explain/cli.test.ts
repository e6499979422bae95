/** `toolgate eval --explain`: real CLI runs (pretty and json), including a query that errors. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

async function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const r = await runCli(args);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

function inputFile(input: unknown): string {
  const f = join(mkdtempSync(join(tmpdir(), "tg-explain-")), "input.json");
  writeFileSync(f, JSON.stringify(input));
  return f;
}

describe("toolgate eval --explain", () => {
  it("prints the result, then a table of the shipped policy's rules with their values for the input", async () => {
    const input = inputFile({
      tool: "reserve_funds", effect: "reversible_write", args: { amount: 10 }, fingerprint: "fp", args_hash: "ah", operation_id: "op-1",
      principal: { tenant: "t1", user: "alice", roles: ["agent"] }, approval: null, now_ms: 1, policy_version: "v1",
      policy_code_version: "c1", policy_data_version: "d1",
    });
    const r = await run(["eval", "--explain", "-d", "policies/authz.rego", "-d", "policies/data.json", "--input", input, "data.toolgate.authz.decision"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const [json, table] = r.out.split("\n\n  RULE");
    expect(JSON.parse(json ?? "")).toMatchObject({ result: [{ expressions: [{ value: { allow: false, reason: "approval_required", requires_approval: true } }] }] });
    const lines = (table ?? "").split("\n");
    // Rows of the rules' heads in the shipped policy, found in the file so policy edits do not break the test.
    const policyLines = readFileSync("policies/authz.rego", "utf8").split("\n");
    const rowOf = (head: string) => policyLines.findIndex((l) => l.startsWith(head)) + 1;
    const [d1, d2, wf, am] = [rowOf("default decision"), rowOf("decision := "), rowOf("well_formed if"), rowOf("approval_mismatch := ")];
    const head = lines[1] ?? "";
    expect(head).toMatch(new RegExp(`^\\* data\\.toolgate\\.authz\\.decision +complete +policies/authz\\.rego:${d1},${d2} +\\{"allow":false,"reason":"approval_required","requires_approval":true\\}  <- else #\\d+ \\(policies/authz\\.rego:\\d+\\)$`));
    // The branch named is an `else` of the decision in the file.
    const elseRow = Number(/authz\.rego:(\d+)\)$/.exec(head)?.[1]);
    expect(policyLines[elseRow - 1]).toMatch(/\belse\b/);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\+ data\\.toolgate\\.authz\\.well_formed +complete +policies/authz\\.rego:${wf} +true$`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\+ data\\.toolgate\\.authz\\.approval_mismatch +complete +policies/authz\\.rego:${am} +undefined$`)));
  }, 180_000);

  it("--format json: one document; a query that errors exits 1 but still explains, with the error on the rule", async () => {
    const input = inputFile({ a: 1, b: 2, users: ["x"] });
    const r = await run(["eval", "--explain", "--format", "json", "-d", "test/explain/fixture", "--input", input, "data.fx.conflict"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/eval_conflict_error/);
    const doc = JSON.parse(r.out) as { result?: unknown; explanation: { rules: { path: string; role: string; outcome: { status: string } }[] } };
    expect(doc.result).toBeUndefined();
    expect(doc.explanation.rules[0]).toMatchObject({ path: "data.fx.conflict", role: "query", outcome: { status: "error" } });
    expect(doc.explanation.rules.find((x) => x.path === "data.fx.allow")).toMatchObject({ role: "other", outcome: { status: "value", value: true } });
  }, 180_000);

  it("rejects an unknown --format as a usage error and documents --explain in --help", async () => {
    expect((await run(["eval", "--explain", "--format", "xml", "data.x"])).code).toBe(2);
    const help = (await run(["eval", "--help"])).out;
    expect(help).toContain("--explain");
    expect(help).toMatch(/--format <format> +with --explain/);
  }, 180_000);
});
