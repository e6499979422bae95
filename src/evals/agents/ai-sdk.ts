/**
 * An agent over the Vercel AI SDK: each step is one `generateText` call with the
 * conversation so far and the gated tools (no `execute`: the runner executes every
 * call through the gate). Any provider's model plugs in, e.g. a local
 * OpenAI-compatible endpoint through `@ai-sdk/openai-compatible`. Needs the `ai`
 * package installed next to toolgate.
 */
import { generateText, jsonSchema, tool } from "ai";
import type { LanguageModel, ModelMessage, ToolSet } from "ai";
import type { JsonObject, JsonValue } from "../../manifest.js";
import { advertisedInputSchema, toCallRequest } from "../../adapters/gate-arguments.js";
import type { Agent, AgentMessage, AgentStep, AgentTool, AgentToolCall } from "../agent.js";

export const defaultSystemPrompt = [
  "You act for the user through the tools offered. Every tool answer is an envelope with `outcome`:",
  "success (check observed_state before you trust it), retryable_failure (retry within retry_after_ms with the same operation_id),",
  "or terminal_failure (stop and tell the user; approval_required means a human must approve first: say so and wait).",
  "Writes take an operation_id you choose: one per intent, the same on every retry of it.",
  "Call no tool when the answer is already known, the request is ambiguous (ask), or it is not allowed.",
].join(" ");

export interface AiSdkAgentOptions {
  readonly model: LanguageModel;
  /** Shown in reports; default "ai-sdk". */
  readonly name?: string;
  readonly system?: string;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
  /**
   * The loop, not the model, keeps time: when the last answer is a retryable_failure, wait its
   * retry_after_ms (up to this many ms) before asking the model again. Default 10000; 0 disables.
   */
  readonly maxRetryWaitMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** retry_after_ms of the latest tool answer when it is a retryable failure, else 0. */
function retryAfterOf(messages: readonly AgentMessage[]): number {
  const last = messages[messages.length - 1];
  if (last === undefined || last.role !== "tool" || last.result.outcome !== "retryable_failure") return 0;
  const ms = last.result.retry_after_ms;
  return typeof ms === "number" && Number.isFinite(ms) && ms > 0 ? ms : 0;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export function toAiSdkTools(tools: readonly AgentTool[]): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    // The same advertised arguments as every other door: the tool's own plus operation_id / approval_id.
    set[t.name] = tool({ description: `${t.description} (effect: ${t.effect})`, inputSchema: jsonSchema<Record<string, unknown>>(advertisedInputSchema(t.manifest) as never) });
  }
  return set;
}

export function toModelMessages(messages: readonly AgentMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "context":
        out.push({ role: "system", content: `Facts you already have (JSON): ${JSON.stringify(m.facts)}` });
        break;
      case "user":
        out.push({ role: "user", content: m.content });
        break;
      case "assistant":
        if (m.tool_calls.length === 0) out.push({ role: "assistant", content: m.content });
        else {
          out.push({
            role: "assistant",
            content: m.tool_calls.map((c) => ({
              type: "tool-call" as const,
              toolCallId: c.id,
              toolName: c.tool,
              input: { ...(isObject(c.args) ? c.args : {}), ...(c.operation_id === undefined ? {} : { operation_id: c.operation_id }), ...(c.approval_id === undefined ? {} : { approval_id: c.approval_id }) },
            })),
          });
        }
        break;
      case "tool":
        out.push({ role: "tool", content: [{ type: "tool-result", toolCallId: m.call_id, toolName: m.tool, output: { type: "json", value: m.result as JsonValue } }] });
        break;
    }
  }
  return out;
}

/** A model's tool call back into the runner's form, split as every door splits it (the gate validates the rest). */
export function fromToolCall(id: string, toolName: string, input: unknown, tools: readonly AgentTool[]): AgentToolCall {
  const t = tools.find((x) => x.name === toolName);
  if (t === undefined) return { id, tool: toolName, args: input };
  const req = toCallRequest(t.manifest, input);
  const ids = req as { operation_id?: unknown; approval_id?: unknown };
  return {
    id,
    tool: toolName,
    args: req.args,
    ...(typeof ids.operation_id === "string" ? { operation_id: ids.operation_id } : {}),
    ...(typeof ids.approval_id === "string" ? { approval_id: ids.approval_id } : {}),
  };
}

export function aiSdkAgent(o: AiSdkAgentOptions): Agent {
  return {
    name: o.name ?? "ai-sdk",
    async step(messages, tools): Promise<AgentStep> {
      const wait = Math.min(retryAfterOf(messages), o.maxRetryWaitMs ?? 10_000);
      if (wait > 0) await sleep(wait);
      const result = await generateText({
        model: o.model,
        system: o.system ?? defaultSystemPrompt,
        messages: toModelMessages(messages),
        tools: toAiSdkTools(tools),
        ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
        ...(o.maxOutputTokens === undefined ? {} : { maxOutputTokens: o.maxOutputTokens }),
      });
      if (result.toolCalls.length > 0) {
        return { kind: "tool_calls", calls: result.toolCalls.map((c) => fromToolCall(c.toolCallId, c.toolName, c.input, tools)) };
      }
      return { kind: "final", text: result.text };
    },
  };
}
