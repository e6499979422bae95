/** JSON Schema (draft 2020-12) of the envelope, for callers in other languages. Kept in step with isEnvelope by a test. */
import { reasons, retryableReasons } from "./envelope.js";

const observedState = { type: "object" } as const;

export const envelopeJsonSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://toolgate.dev/schemas/envelope.json",
  title: "toolgate response envelope",
  oneOf: [
    {
      type: "object",
      required: ["outcome", "value", "observed_state", "operation_id", "replayed"],
      properties: {
        outcome: { const: "success" },
        value: true,
        resource_id: { type: "string" },
        observed_state: { oneOf: [observedState, { type: "null" }] },
        operation_id: { type: ["string", "null"] },
        replayed: { type: "boolean" },
      },
    },
    {
      type: "object",
      required: ["outcome", "reason", "message", "retry_after_ms"],
      properties: {
        outcome: { const: "retryable_failure" },
        reason: { enum: [...retryableReasons] },
        message: { type: "string" },
        retry_after_ms: { type: "number", minimum: 0 },
        observed_state: observedState,
        operation_id: { type: "string" },
      },
    },
    {
      type: "object",
      required: ["outcome", "reason", "message"],
      properties: {
        outcome: { const: "terminal_failure" },
        reason: { enum: [...reasons] },
        message: { type: "string" },
        observed_state: observedState,
        approval_id: { type: "string" },
        expires_at: { type: "string" },
        next: { type: "string" },
        failure: { type: "string" },
        problems: { type: "array", items: { type: "string" } },
        operation_id: { type: "string" },
        replayed: { type: "boolean" },
        resource_id: { type: "string" },
        limit: {
          type: "object",
          required: ["name", "count", "sum", "max_count", "max_sum"],
          properties: { name: { type: "string" }, count: { type: "number" }, sum: { type: "number" }, max_count: { type: ["number", "null"] }, max_sum: { type: ["number", "null"] } },
        },
        compensation: {
          type: "object",
          required: ["tool", "args", "operation_id"],
          properties: { tool: { type: "string" }, args: { type: "object" }, operation_id: { type: "string" } },
        },
      },
    },
  ],
} as const;
