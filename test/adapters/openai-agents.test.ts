/**
 * The OpenAI Agents SDK adapter end to end: a real Agent and run() loop with a scripted
 * Model (the SDK ships no fake model; the script implements its Model interface), paused
 * through RunState interruptions carrying toolgate's approvals, on SQLite and PostgreSQL.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, run, RunState, setTracingDisabled, Usage } from "@openai/agents";
import type { AgentOutputItem, Model, ModelRequest, ModelResponse, StreamEvent } from "@openai/agents";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createOpenAiAgentsTools } from "../../src/adapters/openai-agents.js";
import type { TrustedContext } from "../../src/generated-runtime.js";
import { adapterSite, alice, aliceAsApprover, aliceOtherRun, bob, newOp, RESERVE_TTL_MS, reserveArgs } from "./harness.js";
import type { AdapterGate, AdapterSite } from "./harness.js";
import { describeEachStore } from "../helpers/stores.js";

// No trace export: the test runs offline.
setTracingDisabled(true);

type Step = { tool: string; input: Record<string, unknown>; id: string } | { text: string };

class ScriptedModel implements Model {
  constructor(private readonly steps: Step[]) {}
  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    const step = this.steps.shift();
    if (step === undefined) throw new Error("the script has no more steps");
    const output: AgentOutputItem[] =
      "text" in step
        ? [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: step.text }] }]
        : [{ type: "function_call", callId: step.id, name: step.tool, arguments: JSON.stringify(step.input), status: "completed" }];
    return { usage: new Usage(), output };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error("not streamed in these tests");
  }
}

/** The tool outputs the model was given during a run (envelopes as JSON, or the SDK's rejection text). */
const toolOutputs = (items: readonly { type: string; output?: unknown }[]) => items.filter((i) => i.type === "tool_call_output_item").map((i) => String(i.output));
const envelopes = (items: readonly { type: string; output?: unknown }[]) => toolOutputs(items).map((o) => JSON.parse(o) as Record<string, unknown>);

describeEachStore("toolgate/openai-agents with a real Agent run", (stores) => {
  const kind = stores.name;
  let site: AdapterSite;
  let gate: AdapterGate;
  beforeAll(async () => {
    site = await adapterSite(kind);
    gate = await site.gate();
  });
  afterAll(async () => site?.drop());

  const agentWith = async (g: AdapterGate, steps: Step[], context: TrustedContext = alice) => {
    const adapter = await createOpenAiAgentsTools(g.runtime, { context });
    const agent = new Agent({ name: "banker", instructions: "Use the tools.", model: new ScriptedModel(steps), tools: adapter.tools });
    return { adapter, agent };
  };
  const writeSteps = (op: string, args: Record<string, unknown> = reserveArgs): Step[] => [{ tool: "reserve_funds", input: { ...args, operation_id: op }, id: `c-${op}` }, { text: "finished" }];

  it("allowed: a read runs without an interruption", async () => {
    const { agent } = await agentWith(gate, [{ tool: "get_account", input: { account_id: "acc_alice" }, id: "c-read" }, { text: "done" }]);
    const result = await run(agent, "balance?");
    expect(result.interruptions ?? []).toHaveLength(0);
    expect(envelopes(result.newItems as never)).toMatchObject([{ outcome: "success", value: { account_id: "acc_alice" } }]);
    expect(result.finalOutput).toBe("done");
  });

  it("approve: approving the interruption through the adapter records the approver in toolgate and the call commits once", async () => {
    const op = newOp("ag-approve");
    const { adapter, agent } = await agentWith(gate, writeSteps(op));
    const first = await run(agent, "reserve 1000");
    expect(first.interruptions).toHaveLength(1);
    const item = first.interruptions[0]!;
    const link = await adapter.approvalOf(item);
    expect(link.status).toBe("pending");
    expect(await adapter.resolveInterruptions(first.state, first.interruptions)).toEqual({ undecided: 1 });
    expect(await adapter.approve(first.state, item, aliceAsApprover)).toMatchObject({ ok: false, why: "self_approval" });
    expect(await adapter.approve(first.state, item, bob, "fine")).toMatchObject({ ok: true });
    const approval = link.status === "none" ? null : await gate.runtime.approvals.get(link.approval.id);
    expect(approval?.decision).toMatchObject({ decision: "approve", approver: "bob", reason: "fine" });
    const second = await run(agent, first.state);
    expect(envelopes(second.newItems as never)).toMatchObject([{ outcome: "success", operation_id: op, replayed: false }]);
    expect(second.finalOutput).toBe("finished");
    expect(gate.ledger.effectsOf(op)).toHaveLength(1);
  });

  it("edit: the approver's edit becomes a toolgate edit and the edited call runs, authorised again", async () => {
    const op = newOp("ag-edit");
    const { adapter, agent } = await agentWith(gate, writeSteps(op));
    const first = await run(agent, "reserve 1000");
    const item = first.interruptions[0]!;
    expect(await adapter.edit(first.state, item, { ...reserveArgs, currency: 7 }, bob)).toMatchObject({ ok: false, why: "invalid_edit" });
    expect(await adapter.edit(first.state, item, { ...reserveArgs, amount: 300 }, bob)).toMatchObject({ ok: true });
    const second = await run(agent, first.state);
    const [env] = envelopes(second.newItems as never);
    expect(env).toMatchObject({ outcome: "success", replayed: false });
    expect(env?.["operation_id"]).not.toBe(op);
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
    expect(gate.ledger.reservationByOperation(env?.["operation_id"] as string)?.amount).toBe(300);
  });

  it("reject: the rejection reaches the model as the SDK's rejection and nothing runs", async () => {
    const op = newOp("ag-reject");
    const { adapter, agent } = await agentWith(gate, writeSteps(op));
    const first = await run(agent, "reserve 1000");
    expect(await adapter.reject(first.state, first.interruptions[0]!, bob, "unknown payee")).toMatchObject({ ok: true });
    const second = await run(agent, first.state);
    expect(toolOutputs(second.newItems as never)).toHaveLength(1);
    expect(toolOutputs(second.newItems as never)[0]).toContain("unknown payee");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("a decision made in the inbox shows up as the interruption's decision", async () => {
    const op = newOp("ag-inbox");
    const { adapter, agent } = await agentWith(gate, writeSteps(op));
    const first = await run(agent, "reserve 1000");
    const link = await adapter.approvalOf(first.interruptions[0]!);
    if (link.status === "none") throw new Error("no approval");
    expect((await gate.runtime.approvals.decide(link.approval.id, { decision: "approve" }, bob)).ok).toBe(true);
    expect(await adapter.resolveInterruptions(first.state, first.interruptions)).toEqual({ undecided: 0 });
    const second = await run(agent, first.state);
    expect(envelopes(second.newItems as never)).toMatchObject([{ outcome: "success", operation_id: op }]);
    expect(gate.ledger.effectsOf(op)).toHaveLength(1);
  });

  it("approving the interruption in the SDK without toolgate's approval runs nothing", async () => {
    const op = newOp("ag-forged");
    const { agent } = await agentWith(gate, writeSteps(op));
    const first = await run(agent, "reserve");
    for (const item of first.interruptions) first.state.approve(item);
    const second = await run(agent, first.state);
    expect(envelopes(second.newItems as never)).toMatchObject([{ outcome: "terminal_failure", reason: "approval_required" }]);
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("denied: a denial returns the policy_denied envelope without an interruption", async () => {
    const { agent } = await agentWith(gate, writeSteps(newOp("ag-big"), { ...reserveArgs, amount: 2_000_000 }));
    const result = await run(agent, "reserve two million");
    expect(result.interruptions ?? []).toHaveLength(0);
    expect(envelopes(result.newItems as never)).toMatchObject([{ outcome: "terminal_failure", reason: "policy_denied" }]);
  });

  it("restart: a serialized RunState resumed by a new process continues the same approval; approving it there records the approver", async () => {
    const before = await site.gate();
    const op = newOp("ag-restart");
    const one = await agentWith(before, writeSteps(op));
    const first = await run(one.agent, "reserve 1000");
    const link1 = await one.adapter.approvalOf(first.interruptions[0]!);
    const saved = first.state.toString();
    // A new process: new store connection, runtime, adapter and agent; the RunState comes from its string.
    const after = await before.restart();
    const two = await agentWith(after, [{ text: "finished" }]);
    const state = await RunState.fromString(two.agent, saved);
    const items = state.getInterruptions();
    expect(items).toHaveLength(1);
    const link2 = await two.adapter.approvalOf(items[0]!);
    expect(link2.status).toBe("pending");
    expect(link1.status !== "none" && link2.status !== "none" && link2.approval.id === link1.approval.id).toBe(true);
    expect(await two.adapter.approve(state, items[0]!, bob)).toMatchObject({ ok: true });
    const second = await run(two.agent, state);
    expect(envelopes(second.newItems as never)).toMatchObject([{ outcome: "success", operation_id: op, replayed: false }]);
    expect(after.ledger.effectsOf(op)).toHaveLength(1);
    const approval = link2.status === "none" ? null : await after.runtime.approvals.get(link2.approval.id);
    expect(approval?.decision?.approver).toBe("bob");
  });

  it("restart in a child process: a serialized RunState resumed by another process over the same store continues the same approval", async () => {
    const before = await site.gate();
    const op = newOp("ag-child");
    const one = await agentWith(before, writeSteps(op));
    const first = await run(one.agent, "reserve 1000");
    const link = await one.adapter.approvalOf(first.interruptions[0]!);
    if (link.status === "none") throw new Error("no approval");
    const dir = mkdtempSync(join(tmpdir(), "toolgate-agents-child-"));
    try {
      writeFileSync(join(dir, "paused.json"), JSON.stringify({ store: { kind, db: site.where.db, ...site.where.pg }, state: first.state.toString(), op }));
      const child = spawnSync(process.execPath, ["--import", "tsx", join("test", "adapters", "resume-child.ts"), dir], { encoding: "utf8", timeout: 120_000 });
      expect(child.status, child.stderr).toBe(0);
      const out = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "null") as { decision: { ok: boolean }; envelopes: Record<string, unknown>[]; effects: number };
      expect(out.decision.ok).toBe(true);
      expect(out.envelopes).toMatchObject([{ outcome: "success", operation_id: op, replayed: false }]);
      expect(out.effects).toBe(1);
      // This process sees what the child recorded: the same approval, decided by bob and used by the operation.
      const after = await before.restart();
      const approval = await after.runtime.approvals.get(link.approval.id);
      expect(approval).toMatchObject({ status: "approved", consumed_by: op, decision: { approver: "bob" } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);

  it("restart: an undecided RunState resumed by a new process pauses on the same approval instead of asking again", async () => {
    const before = await site.gate();
    const op = newOp("ag-restart-pending");
    const one = await agentWith(before, writeSteps(op));
    const first = await run(one.agent, "reserve 1000");
    const link1 = await one.adapter.approvalOf(first.interruptions[0]!);
    const after = await before.restart();
    const two = await agentWith(after, [{ text: "finished" }]);
    const again = await run(two.agent, await RunState.fromString(two.agent, first.state.toString()));
    expect(again.interruptions).toHaveLength(1);
    const link2 = await two.adapter.approvalOf(again.interruptions[0]!);
    expect(link1.status !== "none" && link2.status !== "none" && link2.approval.id === link1.approval.id).toBe(true);
    expect((await after.runtime.approvals.list({ tenant: alice.tenant, tool: "reserve_funds", status: "pending" })).approvals.filter((a) => a.operation_id === op)).toHaveLength(1);
  });

  it("expired: an approval that expired while waiting reaches the model as a rejection and cannot be approved", async () => {
    const g = await site.gate();
    const op = newOp("ag-expired");
    const { adapter, agent } = await agentWith(g, writeSteps(op));
    const first = await run(agent, "reserve 1000");
    g.clock.advance(RESERVE_TTL_MS + 1);
    expect(await adapter.approve(first.state, first.interruptions[0]!, bob)).toMatchObject({ ok: false, why: "expired" });
    expect(await adapter.resolveInterruptions(first.state, first.interruptions)).toEqual({ undecided: 0 });
    const second = await run(agent, first.state);
    expect(toolOutputs(second.newItems as never)[0]).toContain("expired");
    expect(g.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("the same approval presented by another run is refused and runs nothing", async () => {
    const op = newOp("ag-other-run");
    const { adapter, agent } = await agentWith(gate, writeSteps(op));
    const first = await run(agent, "reserve 1000");
    const item = first.interruptions[0]!;
    const link = await adapter.approvalOf(item);
    if (link.status === "none") throw new Error("no approval");
    expect(await adapter.approve(first.state, item, bob)).toMatchObject({ ok: true });
    // Another run's model presents the approval id with the same call: refused.
    const hostile = await agentWith(gate, [{ tool: "reserve_funds", input: { ...reserveArgs, operation_id: op, approval_id: link.approval.id }, id: "c-hostile" }, { text: "?" }], aliceOtherRun);
    const r = await run(hostile.agent, "reserve");
    expect(envelopes(r.newItems as never)).toMatchObject([{ outcome: "terminal_failure", reason: "policy_denied" }]);
    expect(toolOutputs(r.newItems as never)[0]).toContain("approval_principal_mismatch");
    // Another run resumes the paused, SDK-approved state: its adapter finds no approval of its own for the call.
    const other = await agentWith(gate, [{ text: "?" }], aliceOtherRun);
    const state = await RunState.fromString(other.agent, first.state.toString());
    const resumed = await run(other.agent, state);
    expect(envelopes(resumed.newItems as never)).toMatchObject([{ outcome: "terminal_failure", reason: "approval_required" }]);
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });
});
