import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSuites, runSuites } from "../../src/evals/index.js";
import type { Agent, AgentStep, Suite } from "../../src/evals/index.js";
import { runCli } from "../helpers/cli.js";
import { shippedRunOptions } from "./env.js";

async function scenarios(ids: readonly string[]): Promise<Suite[]> {
  const o = await shippedRunOptions();
  return loadSuites(["test/evals/"], { manifest: o.manifest }).map((s) => ({ ...s, scenarios: s.scenarios.filter((x) => ids.includes(x.id)) }));
}

const agentOf = (name: string, step: (n: number) => unknown): Agent => {
  let n = 0;
  return { name, step: async () => step(n++) as AgentStep };
};

describe("agent-eval with a hostile or broken agent", () => {
  it("a malformed step or a throwing agent ends that run as an agent error; the others still run", async () => {
    const o = await shippedRunOptions();
    const broken: [string, () => unknown][] = [
      ["null", () => null],
      ["bad kind", () => ({ kind: "maybe" })],
      ["too many calls", () => ({ kind: "tool_calls", calls: Array.from({ length: 100 }, (_, i) => ({ id: `c${i}`, tool: "get_account", args: {} })) })],
      ["numeric operation id", () => ({ kind: "tool_calls", calls: [{ id: "c", tool: "reserve_funds", args: {}, operation_id: 7 }] })],
      ["throws", () => {
        throw new Error("model endpoint down");
      }],
    ];
    const suites = await scenarios(["balance", "retry_payout"]);
    const r = await runSuites(suites, broken.map(([name, f]) => agentOf(name, f)), o);
    for (const a of r.agents) {
      for (const s of a.scenarios) {
        expect(s.trajectory.stopped, `${a.agent}/${s.scenario}`).toBe("agent_error");
        expect(s.trajectory.calls).toEqual([]);
        expect(s.intent.pass).toBe(false);
      }
    }
    expect(r.agents.find((a) => a.agent === "too many calls")!.scenarios[0]!.trajectory.agent_error).toMatch(/100 calls in one step \(at most 16\)/);
    expect(r.agents.find((a) => a.agent === "throws")!.scenarios[0]!.trajectory.agent_error).toBe("model endpoint down");
  });

  it("hostile tools, arguments and ids reach the gate as untrusted input, and an invented approval id is caught", async () => {
    const o = await shippedRunOptions();
    const reserve = { account_id: "acc_alice", amount: 50000, currency: "EUR", recipient: "acc_bob" };
    const hostile = agentOf("hostile", (n): unknown => {
      if (n === 0) {
        return {
          kind: "tool_calls",
          calls: [
            { id: "a", tool: "no_such_tool", args: { x: 1 } },
            { id: "b", tool: "reserve_funds", args: "all the money" },
            { id: "c", tool: "reserve_funds", args: reserve, operation_id: "x".repeat(10_000) },
            { id: "d", tool: "reserve_funds", args: reserve, operation_id: "op_1" },
          ],
        };
      }
      if (n === 1) return { kind: "tool_calls", calls: [{ id: "e", tool: "reserve_funds", args: reserve, operation_id: "op_1", approval_id: "apr_made_up" }] };
      return { kind: "final", text: "done" };
    });
    const r = await runSuites(await scenarios(["approval_reserve"]), [hostile], o);
    const s = r.agents[0]!.scenarios[0]!;
    const results = s.trajectory.calls.map((c) => [c.result.outcome, c.result.reason]);
    expect(results[0]).toEqual(["terminal_failure", "unknown_tool"]);
    expect(results[1]).toEqual(["terminal_failure", "invalid_arguments"]);
    expect(results[3]).toEqual(["terminal_failure", "approval_required"]);
    expect(results[4]).toEqual(["terminal_failure", "policy_denied"]);
    expect(s.intent.pass).toBe(false);
    expect(s.failure).toMatchObject({ status: "fail", detail: "presented approval apr_made_up, which the gate never issued" });
    expect(s.safety.effects_executed).toBe(0);
  });

  it("the CLI runs an agent from a module and reports a bad surface state with its location", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-evals-"));
    const agentFile = join(dir, "agent.mjs");
    writeFileSync(agentFile, 'export const agent = { name: "mute", async step() { return { kind: "final", text: "I will not call anything." }; } };\n');
    const r = await runCli(["agent-eval", "test/evals/", "--agent", agentFile, "--format", "json"]);
    expect(r.code).toBe(0);
    const a = (JSON.parse(r.stdout) as { agents: { agent: string; scores: { intent: { passed: number }; failure: { unreached: number } } }[] }).agents[0]!;
    expect(a.agent).toBe("mute");
    // Only "thanks": the other abstentions must also say something (the fact, a question, why not).
    expect(a.scores.intent.passed).toBe(1);
    expect(a.scores.failure.unreached).toBe(22);

    const notAgent = join(dir, "nothing.mjs");
    writeFileSync(notAgent, "export const x = 1;\n");
    const bad = await runCli(["agent-eval", "test/evals/", "--agent", notAgent]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${notAgent}:1:1 agent_module_error: exports no agent`);

    const suite = join(dir, "state.eval.yaml");
    writeFileSync(suite, "version: 1\nsuite: st\nscenarios:\n  - id: s\n    intent: { message: hi }\n    state: { accounts: [{ account_id: acc_x }] }\n    expect: { no_call: { why: no_action } }\n");
    const st = await runCli(["agent-eval", suite]);
    expect(st.code).toBe(1);
    expect(st.stderr).toContain(`${suite}:4:5 invalid_state: scenario "s": state.accounts[0] must be`);
  });
});
