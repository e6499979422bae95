import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { envelopeJsonSchema, isEnvelope, normalizeEnvelope, reasons } from "../../src/runtime/index.js";

const ajv = new Ajv2020.default({ strict: false });
const schema = ajv.compile(envelopeJsonSchema);

const cases: { note: string; value: unknown; valid: boolean }[] = [
  { note: "success", value: { outcome: "success", value: { a: 1 }, resource_id: "res_1", observed_state: { state: "reserved" }, operation_id: "op", replayed: false }, valid: true },
  { note: "success of a read without operation id", value: { outcome: "success", value: null, observed_state: null, operation_id: null, replayed: false }, valid: true },
  { note: "success without replayed", value: { outcome: "success", value: 1, observed_state: null, operation_id: null }, valid: false },
  { note: "retryable with retry_after_ms", value: { outcome: "retryable_failure", reason: "timeout", message: "m", retry_after_ms: 100 }, valid: true },
  { note: "retryable without retry_after_ms", value: { outcome: "retryable_failure", reason: "timeout", message: "m" }, valid: false },
  { note: "retryable with a terminal reason", value: { outcome: "retryable_failure", reason: "policy_denied", message: "m", retry_after_ms: 1 }, valid: false },
  { note: "retryable with negative retry_after_ms", value: { outcome: "retryable_failure", reason: "timeout", message: "m", retry_after_ms: -1 }, valid: false },
  { note: "terminal approval_required", value: { outcome: "terminal_failure", reason: "approval_required", message: "m", approval_id: "apr_1" }, valid: true },
  { note: "terminal with a reason outside the closed set", value: { outcome: "terminal_failure", reason: "upstream_unavailable", message: "m" }, valid: false },
  { note: "a fourth outcome", value: { outcome: "maybe", reason: "timeout", message: "m" }, valid: false },
  { note: "not an object", value: "ok", valid: false },
  { note: "a bare status", value: { status: "ok" }, valid: false },
];

describe("envelope", () => {
  it.each(cases)("type guard and JSON Schema agree: $note", ({ value, valid }) => {
    expect(isEnvelope(value)).toBe(valid);
    expect(schema(value)).toBe(valid);
  });

  it("every reason of the closed set is accepted on a terminal failure", () => {
    for (const reason of reasons) expect(isEnvelope({ outcome: "terminal_failure", reason, message: "" })).toBe(true);
    expect([...reasons]).toEqual([
      "unknown_tool",
      "invalid_arguments",
      "policy_denied",
      "approval_required",
      "timeout",
      "retryable_error",
      "permanent_error",
      "retry_exhausted",
      "idempotency_conflict",
      "interrupted",
      "context_unavailable",
      "policy_budget_exceeded",
      "policy_evaluation_error",
      "outcome_unknown",
      "destructive_denied",
      "limit_exceeded",
    ]);
  });

  it("anything unknown is treated as terminal", () => {
    expect(normalizeEnvelope({ outcome: "partial", value: 1 })).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", message: expect.stringContaining('outcome "partial"') });
    expect(normalizeEnvelope(undefined)).toMatchObject({ outcome: "terminal_failure" });
    const ok = { outcome: "success", value: 1, observed_state: null, operation_id: null, replayed: false };
    expect(normalizeEnvelope(ok)).toBe(ok);
  });
});
