/**
 * toolgate/openai-agents: the gated tools as OpenAI Agents SDK function tools.
 * `needsApproval` is answered by the gate (a preflight that creates the toolgate
 * approval); the run's interruptions are resumed from toolgate's decisions
 * (`resolveInterruptions`), so only an authenticated approver approves. Every execution
 * goes through `runtime.call` and returns the envelope (JSON) to the model.
 */
import { tool } from "@openai/agents";
import type { FunctionTool, RunToolApprovalItem } from "@openai/agents";
import type { Runtime } from "../runtime/runtime.js";
import { advertisedInputSchema } from "./gate-arguments.js";
import { gatedCalls } from "./gated-calls.js";
import type { GatedCalls, GatedCallsOptions } from "./gated-calls.js";

/** The part of a paused run's `RunState` this adapter uses (any agent and context type). */
export interface ApprovableState {
  approve(item: RunToolApprovalItem): void;
  reject(item: RunToolApprovalItem): void;
}

export interface OpenAiAgentsTools {
  /** Pass to `new Agent({ tools })`. */
  readonly tools: FunctionTool[];
  readonly gate: GatedCalls;
  /**
   * Applies toolgate's decisions to a paused run: approved -> `state.approve`, rejected ->
   * `state.reject`; still pending ones stay interrupted. Returns how many remain undecided;
   * resume with `run(agent, state)`.
   */
  resolveInterruptions(state: ApprovableState, interruptions: readonly RunToolApprovalItem[]): Promise<{ undecided: number }>;
}

const callIdOf = (item: RunToolApprovalItem): string | undefined => {
  const raw = item.rawItem as { callId?: unknown; id?: unknown };
  return typeof raw.callId === "string" ? raw.callId : typeof raw.id === "string" ? raw.id : undefined;
};

export async function createOpenAiAgentsTools(runtime: Runtime, options: GatedCallsOptions): Promise<OpenAiAgentsTools> {
  const gate = gatedCalls(runtime, options);
  const tools: FunctionTool[] = [];
  for (const entry of await gate.tools()) {
    // Not strict: the manifest's schema is advertised as written (strict mode would rewrite optional fields).
    const parameters = { ...advertisedInputSchema(entry), type: "object" } as Parameters<typeof tool>[0]["parameters"];
    tools.push(
      tool({
        name: entry.name,
        description: entry.description,
        parameters: parameters as never,
        strict: false,
        needsApproval: async (_ctx, input, callId) => gate.needsApproval(entry, input, callId ?? ""),
        execute: async (input, _ctx, details) => JSON.stringify(await gate.call(entry, input, details?.toolCall?.callId ?? "")),
      }) as unknown as FunctionTool,
    );
  }
  return {
    tools,
    gate,
    async resolveInterruptions(state, interruptions) {
      let undecided = 0;
      for (const item of interruptions) {
        const id = callIdOf(item);
        const standing = id === undefined ? "unknown" : await gate.standing(id);
        if (standing === "approved") state.approve(item);
        else if (standing === "rejected") state.reject(item);
        else undecided += 1;
      }
      return { undecided };
    },
  };
}
