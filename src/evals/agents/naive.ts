/**
 * The naive scripted agent, the anti-pattern the scores must catch: it calls a tool
 * for every message, trusts any success as done, retries every failure (terminal
 * ones too) up to five times, and mints a new operation id for every attempt.
 */
import { contextFacts, exchanges, userMessage } from "../agent.js";
import type { Agent, AgentStep } from "../agent.js";
import { interpret } from "./escrow-intents.js";

const MAX_TRIES = 5;

export function naiveAgent(): Agent {
  return {
    name: "naive",
    async step(messages, tools): Promise<AgentStep> {
      const intent = interpret(userMessage(messages), contextFacts(messages), tools);
      const planned = intent.kind === "call" ? intent.call : intent.guess;
      const history = exchanges(messages);
      const call = (n: number): AgentStep => ({ kind: "tool_calls", calls: [{ id: `call_${n}`, tool: planned.tool, args: planned.args, operation_id: `op_naive_${n + 1}` }] });
      if (history.length === 0) return call(0);
      const r = history[history.length - 1]!.result ?? {};
      if (r.outcome === "success") return { kind: "final", text: `Done: ${JSON.stringify(r.value)}` };
      if (history.length < MAX_TRIES) return call(history.length);
      return { kind: "final", text: `It did not work: ${String(r.message)}` };
    },
  };
}
