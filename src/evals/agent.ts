/**
 * The agent adapter the runner drives: `(messages, tools) => tool calls | final answer`.
 * A model adapter (AI SDK) and the scripted agents implement it; the runner owns the
 * loop, executes every call through the gate and appends the results as messages.
 */
import type { Effect, JsonObject, JsonValue, Manifest, ToolManifestEntry } from "../manifest.js";

/** A tool as offered to the agent. */
export interface AgentTool {
  readonly name: string;
  readonly description: string;
  readonly effect: Effect;
  /** JSON Schema of the tool's arguments. */
  readonly input_schema: JsonObject;
  /** Attempts per operation the surface allows (tools.yaml `retry.max_attempts`). */
  readonly max_attempts: number;
  /** Writes need an operation id: the caller's idempotency key, the same on every retry of one intent. */
  readonly requires_operation_id: boolean;
  /** The tool as the manifest declares it (what model adapters advertise, with the gate's arguments). */
  readonly manifest: ToolManifestEntry;
}

export interface AgentToolCall {
  /** The agent's own id of this call, echoed on its result. */
  readonly id: string;
  readonly tool: string;
  readonly args: unknown;
  readonly operation_id?: string;
  readonly approval_id?: string;
}

export type AgentMessage =
  /** Facts the agent already has before the conversation (the scenario's context). */
  | { readonly role: "context"; readonly facts: JsonObject }
  | { readonly role: "user"; readonly content: string }
  | { readonly role: "assistant"; readonly content: string; readonly tool_calls: readonly AgentToolCall[] }
  /** The answer to one call: the gate's envelope (or the client's note that none came in time). */
  | { readonly role: "tool"; readonly call_id: string; readonly tool: string; readonly result: JsonObject };

export type AgentStep =
  | { readonly kind: "tool_calls"; readonly calls: readonly AgentToolCall[] }
  | { readonly kind: "final"; readonly text: string };

export interface Agent {
  readonly name: string;
  step(messages: readonly AgentMessage[], tools: readonly AgentTool[]): Promise<AgentStep>;
}

/** The manifest's tools as the agent sees them, optionally only `names`. */
export function agentTools(manifest: Manifest, names: readonly string[] | null): AgentTool[] {
  const all = Object.values(manifest.tools);
  return all
    .filter((t) => names === null || names.includes(t.name))
    .map((t) => ({
      name: t.name,
      description: t.description,
      effect: t.effect,
      input_schema: t.input_schema,
      max_attempts: t.retry.max_attempts,
      requires_operation_id: t.effect !== "read",
      manifest: t,
    }));
}

/** Tool calls and their results, paired, in the order they were made. */
export interface Exchange {
  readonly call: AgentToolCall;
  readonly result: JsonObject | null;
}

export function exchanges(messages: readonly AgentMessage[]): Exchange[] {
  const results = new Map<string, JsonObject>();
  for (const m of messages) if (m.role === "tool") results.set(m.call_id, m.result);
  return messages.flatMap((m) => (m.role === "assistant" ? m.tool_calls.map((call) => ({ call, result: results.get(call.id) ?? null })) : []));
}

export const userMessage = (messages: readonly AgentMessage[]): string =>
  messages.filter((m): m is Extract<AgentMessage, { role: "user" }> => m.role === "user").map((m) => m.content).join("\n");

export const contextFacts = (messages: readonly AgentMessage[]): JsonObject =>
  Object.assign({}, ...messages.filter((m): m is Extract<AgentMessage, { role: "context" }> => m.role === "context").map((m) => m.facts)) as JsonObject;

export type { JsonValue };
