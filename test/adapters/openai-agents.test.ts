/**
 * The OpenAI Agents SDK adapter end to end: a real Agent and run() loop with a scripted
 * model. The SDK ships no fake model, so the script implements its Model interface.
 */
import { Agent, run, setTracingDisabled, Usage } from "@openai/agents";
import type { AgentOutputItem, Model, ModelRequest, ModelResponse, StreamEvent } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAiAgentsTools } from "../../src/adapters/openai-agents.js";
import type { Store } from "../../src/store/store.js";
import { alice, approveAsBob, hasPg, makeTestGate, reserveArgs, storeKinds, storeSite } from "../mcp/fixture.js";
import type { StoreSite, TestGate } from "../mcp/fixture.js";
import { flakyLedger } from "./scripted.js";

// No trace export: the test runs offline.
setTracingDisabled(true);

type Step = { tool: string; input: Record<string, unknown>; id: string } | { text: string };

class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly steps: Step[]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
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

/** The envelopes the tools returned to the model during a run. */
const envelopes = (items: readonly { type: string; output?: unknown }[]) =>
  items.filter((i) => i.type === "tool_call_output_item").map((i) => JSON.parse(String(i.output)) as Record<string, unknown>);

for (const kind of storeKinds) {
  describe.skipIf(kind === "postgres" && !hasPg)(`toolgate/openai-agents with a real Agent run (${kind} store)`, () => {
    let site: StoreSite;
    let store: Store;
    let gate: TestGate;
    beforeAll(async () => {
      site = await storeSite(kind);
      store = await site.open();
      gate = await makeTestGate(store, flakyLedger);
    });
    afterAll(async () => {
      await store?.close();
      await site?.drop();
    });

    const agentWith = async (steps: Step[]) => {
      const adapter = await createOpenAiAgentsTools(gate.runtime, { context: alice });
      const agent = new Agent({ name: "banker", instructions: "Use the tools.", model: new ScriptedModel(steps), tools: adapter.tools });
      return { adapter, agent };
    };

    it("offers the policy's listing as function tools", async () => {
      const { adapter } = await agentWith([]);
      const names = adapter.tools.map((t) => t.name);
      expect(names).toContain("reserve_funds");
      expect(names).not.toContain("close_account");
    });

    it("a read returns the success envelope to the model", async () => {
      const { agent } = await agentWith([{ tool: "get_account", input: { account_id: "acc_alice" }, id: "c-read" }, { text: "done" }]);
      const result = await run(agent, "balance?");
      expect(envelopes(result.newItems as never)).toMatchObject([{ outcome: "success", value: { account_id: "acc_alice" } }]);
      expect(result.finalOutput).toBe("done");
    });

    it("a write needing approval interrupts the run; toolgate's approval resumes it and the call commits once", async () => {
      const op = `op-agents-${kind}`;
      const { adapter, agent } = await agentWith([{ tool: "reserve_funds", input: { ...reserveArgs, operation_id: op }, id: "c-w" }, { text: "reserved" }]);
      const first = await run(agent, "reserve 1000");
      expect(first.interruptions).toHaveLength(1);
      const approvalId = adapter.gate.approvalFor("c-w");
      expect(approvalId).toMatch(/^apr_/);
      expect(gate.ledger.effectsOf(op)).toHaveLength(0);
      expect(await adapter.resolveInterruptions(first.state, first.interruptions)).toEqual({ undecided: 1 });

      await approveAsBob(gate.runtime, approvalId as string);
      expect(await adapter.resolveInterruptions(first.state, first.interruptions)).toEqual({ undecided: 0 });
      const second = await run(agent, first.state);
      expect(envelopes(second.newItems as never)).toMatchObject([{ outcome: "success", operation_id: op, replayed: false }]);
      expect(second.finalOutput).toBe("reserved");
      expect(gate.ledger.effectsOf(op)).toHaveLength(1);
    });

    it("approving the interruption in the SDK without toolgate's approval runs no effect", async () => {
      const op = `op-agents-forged-${kind}`;
      const { agent } = await agentWith([{ tool: "reserve_funds", input: { ...reserveArgs, amount: 9, operation_id: op }, id: "c-f" }, { text: "hmm" }]);
      const first = await run(agent, "reserve 9");
      for (const item of first.interruptions) first.state.approve(item);
      const second = await run(agent, first.state);
      expect(envelopes(second.newItems as never)).toMatchObject([{ outcome: "terminal_failure", reason: "approval_required" }]);
      expect(gate.ledger.effectsOf(op)).toHaveLength(0);
    });

    it("a denial returns the policy_denied envelope to the model", async () => {
      const { agent } = await agentWith([{ tool: "reserve_funds", input: { ...reserveArgs, amount: 2_000_000, operation_id: `op-agents-big-${kind}` }, id: "c-d" }, { text: "no" }]);
      const result = await run(agent, "reserve two million");
      expect(result.interruptions ?? []).toHaveLength(0);
      expect(envelopes(result.newItems as never)).toMatchObject([{ outcome: "terminal_failure", reason: "policy_denied" }]);
    });

    it("a retryable failure returns outcome, reason and retry_after_ms to the model", async () => {
      const { agent } = await agentWith([{ tool: "get_account", input: { account_id: "acc_bob" }, id: "c-r" }, { text: "later" }]);
      const result = await run(agent, "bob?");
      expect(envelopes(result.newItems as never)).toMatchObject([{ outcome: "retryable_failure", reason: "retryable_error", retry_after_ms: 2000 }]);
    });
  });
}
