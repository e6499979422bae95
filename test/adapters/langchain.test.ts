/**
 * The LangChain adapter end to end in LangGraph: createReactAgent with a scripted chat
 * model (LangChain's own fakes answer with one fixed message, so the script subclasses
 * BaseChatModel the same way they do, returning the next scripted message per turn).
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLangChainTools } from "../../src/adapters/langchain.js";
import type { Store } from "../../src/store/store.js";
import { alice, approveAsBob, hasPg, makeTestGate, reserveArgs, storeKinds, storeSite } from "../mcp/fixture.js";
import type { StoreSite, TestGate } from "../mcp/fixture.js";
import { flakyLedger } from "./scripted.js";

/** Each turn: a function of the conversation so far (the model reads tool results) to its next message. */
type Turn = (messages: BaseMessage[]) => AIMessage;

class ScriptedChatModel extends BaseChatModel {
  constructor(private readonly turns: Turn[]) {
    super({});
  }
  _llmType(): string {
    return "scripted";
  }
  override bindTools(): this {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const turn = this.turns.shift();
    if (turn === undefined) throw new Error("the script has no more turns");
    const message = turn(messages);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}

const callTool = (name: string, args: Record<string, unknown>, id: string): Turn => () => new AIMessage({ content: "", tool_calls: [{ name, args, id, type: "tool_call" }] });
const say = (text: string): Turn => () => new AIMessage(text);
const lastEnvelope = (messages: BaseMessage[]): Record<string, unknown> => {
  const tool = [...messages].reverse().find((m) => m.getType() === "tool");
  return JSON.parse(String(tool?.content ?? "null")) as Record<string, unknown>;
};
const envelopes = (messages: BaseMessage[]) => messages.filter((m) => m.getType() === "tool").map((m) => JSON.parse(String(m.content)) as Record<string, unknown>);

for (const kind of storeKinds) {
  describe.skipIf(kind === "postgres" && !hasPg)(`toolgate/langchain in a LangGraph ReAct agent (${kind} store)`, () => {
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

    const agent = async (turns: Turn[]) => createReactAgent({ llm: new ScriptedChatModel(turns), tools: await createLangChainTools(gate.runtime, { context: alice }) });

    it("offers the policy's listing with the manifest's input schemas", async () => {
      const tools = await createLangChainTools(gate.runtime, { context: alice });
      expect(tools.map((t) => t.name)).toContain("reserve_funds");
      expect(tools.map((t) => t.name)).not.toContain("close_account");
    });

    it("a read returns the success envelope to the model", async () => {
      const graph = await agent([callTool("get_account", { account_id: "acc_alice" }, "t-read"), say("done")]);
      const out = await graph.invoke({ messages: [{ role: "user", content: "balance?" }] });
      expect(envelopes(out.messages)).toMatchObject([{ outcome: "success", value: { account_id: "acc_alice" } }]);
    });

    it("a write needing approval: the model gets the approval id, a human approves, the model's retry commits once", async () => {
      const op = `op-lc-${kind}`;
      const first = await (await agent([callTool("reserve_funds", { ...reserveArgs, operation_id: op }, "t-w1"), say("waiting for approval")])).invoke({
        messages: [{ role: "user", content: "reserve 1000" }],
      });
      const asked = lastEnvelope(first.messages);
      expect(asked).toMatchObject({ outcome: "terminal_failure", reason: "approval_required", operation_id: op });
      expect(gate.ledger.effectsOf(op)).toHaveLength(0);

      await approveAsBob(gate.runtime, asked["approval_id"] as string);
      // The model reads the approval id from the tool message and retries with the same operation id.
      const retry: Turn = (messages) => {
        const env = lastEnvelope(messages);
        return new AIMessage({ content: "", tool_calls: [{ name: "reserve_funds", args: { ...reserveArgs, operation_id: op, approval_id: env["approval_id"] }, id: "t-w2", type: "tool_call" }] });
      };
      const second = await (await agent([retry, say("reserved")])).invoke({ messages: [...first.messages, { role: "user", content: "approved, go ahead" }] });
      expect(lastEnvelope(second.messages)).toMatchObject({ outcome: "success", operation_id: op, replayed: false });
      expect(gate.ledger.effectsOf(op)).toHaveLength(1);
    });

    it("a denial returns the policy_denied envelope to the model", async () => {
      const graph = await agent([callTool("reserve_funds", { ...reserveArgs, amount: 2_000_000, operation_id: `op-lc-big-${kind}` }, "t-d"), say("no")]);
      const out = await graph.invoke({ messages: [{ role: "user", content: "two million" }] });
      expect(envelopes(out.messages)).toMatchObject([{ outcome: "terminal_failure", reason: "policy_denied" }]);
    });

    it("a retryable failure returns outcome, reason and retry_after_ms to the model", async () => {
      const graph = await agent([callTool("get_account", { account_id: "acc_bob" }, "t-r"), say("later")]);
      const out = await graph.invoke({ messages: [{ role: "user", content: "bob?" }] });
      expect(envelopes(out.messages)).toMatchObject([{ outcome: "retryable_failure", reason: "retryable_error", retry_after_ms: 2000 }]);
    });
  });
}
