/**
 * Child process of the adapters' restart cases: a new process that resumes a paused OpenAI
 * Agents run from its serialized RunState over the same store. argv: <dir>, holding
 * `paused.json` { store: { kind, db?, url?, schema? }, state, op }. It opens the store, makes
 * a new runtime and adapter for alice's run, approves the interruption as bob through the
 * adapter, resumes the run and prints { decision, envelopes, effects } as JSON.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, run, RunState, setTracingDisabled, Usage } from "@openai/agents";
import type { Model, ModelResponse, StreamEvent } from "@openai/agents";
import { manifest, validators } from "../../generated/index.js";
import { createOpenAiAgentsTools } from "../../src/adapters/openai-agents.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../../src/demo/escrow.js";
import { createRuntime } from "../../src/runtime/index.js";
import { openPgStore, openSqliteStore } from "../../src/store/index.js";
import { alice, bob, loadPolicy } from "../mcp/fixture.js";

setTracingDisabled(true);

class FinalAnswer implements Model {
  async getResponse(): Promise<ModelResponse> {
    return { usage: new Usage(), output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "finished" }] }] };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error("not streamed");
  }
}

const dir = process.argv[2];
if (dir === undefined) throw new Error("usage: resume-child.ts <dir>");
const paused = JSON.parse(readFileSync(join(dir, "paused.json"), "utf8")) as { store: { kind: string; db: string; url?: string; schema?: string }; state: string; op: string };
const store = paused.store.kind === "sqlite" ? openSqliteStore(paused.store.db) : await openPgStore({ url: paused.store.url ?? "", schema: paused.store.schema ?? "", max: 2 });
const ledger = new EscrowLedger();
const runtime = createRuntime({ manifest, validators, handlers: escrowHandlers(ledger), reconcilers: escrowReconcilers(ledger), policy: await loadPolicy(), store, onError: () => undefined });
const adapter = await createOpenAiAgentsTools(runtime, { context: alice });
const agent = new Agent({ name: "banker", instructions: "Use the tools.", model: new FinalAnswer(), tools: adapter.tools });
const state = await RunState.fromString(agent, paused.state);
const [item] = state.getInterruptions();
if (item === undefined) throw new Error("the restored state has no interruption");
const decision = await adapter.approve(state, item, bob);
const result = await run(agent, state);
const envelopes = result.newItems.filter((i) => i.type === "tool_call_output_item").map((i) => JSON.parse(String((i as { output?: unknown }).output)) as unknown);
process.stdout.write(`${JSON.stringify({ decision, envelopes, effects: ledger.effectsOf(paused.op).length })}\n`);
await store.close();
