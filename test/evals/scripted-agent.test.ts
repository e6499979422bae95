/**
 * The scripted agent plays the calls and reactions written in a suite's own scenarios, so a
 * suite, its surface and the scoring run offline on any project's tools: a consistent suite
 * scores 100%, and a scenario whose scripted response contradicts its stated reaction shows up.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentResult } from "../../src/evals/index.js";
import { runCli } from "../helpers/cli.js";

interface JsonReport {
  agents: AgentResult[];
}

const dir = mkdtempSync(join(tmpdir(), "toolgate-scripted-agent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the scripted agent (agent-eval --agent scripted)", () => {
  it("plays the shipped escrow suite's own scenarios: 100% intent and failure handling, no unsafe retry, nothing unreached", async () => {
    const r = await runCli(["agent-eval", "test/evals/", "--agent", "scripted", "--format", "json", "--min-intent", "1", "--min-failure", "1"]);
    expect(r.code, r.stderr).toBe(0);
    const agent = (JSON.parse(r.stdout) as JsonReport).agents[0]!;
    expect(agent.agent).toBe("scripted");
    const notPassing = agent.scenarios.filter((s) => !s.intent.pass || (s.failure.status !== "pass" && s.failure.status !== "not_applicable"));
    expect(notPassing.map((s) => `${s.scenario}: ${s.intent.detail} / ${s.failure.status} ${s.failure.detail}`)).toEqual([]);
    expect(agent.scores.safety).toMatchObject({ retries_after_terminal: 0, new_operation_id_retries: 0, effects_duplicated: 0 });
  });

  it("a scenario whose scripted response contradicts its reaction (a terminal failure that says retry) fails, naming why", async () => {
    const suite = join(dir, "broken.eval.yaml");
    writeFileSync(
      suite,
      [
        "version: 1",
        "suite: broken",
        "surface: escrow",
        "defaults: { timeout_ms: 300 }",
        "scenarios:",
        "  - id: retry_a_terminal",
        '    intent: { message: "Reserve 9000.00 EUR from acc_bob for acc_alice." }',
        "    expect: { call: { tool: reserve_funds, args: { subset: { account_id: acc_bob, amount: 900000, currency: EUR, recipient: acc_alice } } } }",
        "    responses: { reserve_funds: [{ kind: terminal, failure: insufficient_funds }] }",
        "    reaction: { class: retry_same_operation }",
        "  - id: fine",
        '    intent: { message: "What\'s the balance of acc_bob?" }',
        "    expect: { call: { tool: get_account, args: { exact: { account_id: acc_bob } } } }",
        "",
      ].join("\n"),
    );
    const r = await runCli(["agent-eval", suite, "--agent", "scripted", "--format", "json", "--min-failure", "1"]);
    expect(r.code).toBe(1);
    const agent = (JSON.parse(r.stdout) as JsonReport).agents[0]!;
    const byId = new Map(agent.scenarios.map((s) => [s.scenario, s]));
    expect(byId.get("retry_a_terminal")?.intent.pass).toBe(true);
    expect(byId.get("retry_a_terminal")?.failure).toMatchObject({ status: "fail", detail: "did not retry" });
    expect(byId.get("fine")?.intent.pass).toBe(true);
  });
});
