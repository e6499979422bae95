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
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** What the model fills in for one tool: the tool's arguments, and the idempotency and approval ids beside them. */
export function toolInputSchema(t: AgentTool): JsonObject {
  return {
    type: "object",
    additionalProperties: false,
    required: t.requires_operation_id ? ["arguments", "operation_id"] : ["arguments"],
    properties: {
      arguments: t.input_schema,
      operation_id: { type: "string", minLength: 1, maxLength: 200, description: "Idempotency key of this intent: the same on every retry of it." },
      approval_id: { type: "string", description: "Only an approval id the gate returned." },
    },
  };
}

export function toAiSdkTools(tools: readonly AgentTool[]): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    set[t.name] = tool({ description: `${t.description} (effect: ${t.effect})`, inputSchema: jsonSchema<Record<string, unknown>>(toolInputSchema(t) as never) });
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
              input: { arguments: c.args, ...(c.operation_id === undefined ? {} : { operation_id: c.operation_id }), ...(c.approval_id === undefined ? {} : { approval_id: c.approval_id }) },
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

/** A model's tool call back into the runner's form; a missing `arguments` wrapper is read as the arguments themselves. */
export function fromToolCall(id: string, toolName: string, input: unknown): AgentToolCall {
  const o = isObject(input) ? input : {};
  const { arguments: wrapped, operation_id, approval_id, ...rest } = o;
  return {
    id,
    tool: toolName,
    args: "arguments" in o ? (wrapped ?? null) : rest,
    ...(typeof operation_id === "string" ? { operation_id } : {}),
    ...(typeof approval_id === "string" ? { approval_id } : {}),
  };
}

export function aiSdkAgent(o: AiSdkAgentOptions): Agent {
  return {
    name: o.name ?? "ai-sdk",
    async step(messages, tools): Promise<AgentStep> {
      const result = await generateText({
        model: o.model,
        system: o.system ?? defaultSystemPrompt,
        messages: toModelMessages(messages),
        tools: toAiSdkTools(tools),
        ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
        ...(o.maxOutputTokens === undefined ? {} : { maxOutputTokens: o.maxOutputTokens }),
      });
      if (result.toolCalls.length > 0) {
        return { kind: "tool_calls", calls: result.toolCalls.map((c) => fromToolCall(c.toolCallId, c.toolName, c.input)) };
      }
      return { kind: "final", text: result.text };
    },
  };
}
