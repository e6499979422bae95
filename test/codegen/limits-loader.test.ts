/** tools.yaml `limits:` and `idempotency.key`: located errors for every bad declaration, and the manifest they give. */
import { describe, expect, it } from "vitest";
import { loadToolsSource } from "../../codegen/toolsyaml/index.js";

/** Two writes sharing a limit; cases patch one thing. */
const source = (limit: string, extra = "", key = "") => `version: 1
tools:
  refund_order:
    description: Refund an order.
    effect: external_write
    input:
      type: object
      additionalProperties: false
      properties:
        customer_id: { type: string }
        amount: { type: integer }
        note: { type: string }
    output: { type: object }
    idempotency: { fingerprint: [customer_id, amount]${key} }
    limits:
      refunds_per_customer:
${limit}
  goodwill_credit:
    description: Credit a customer.
    effect: reversible_write
    input:
      type: object
      additionalProperties: false
      properties:
        customer_id: { type: string }
        amount: { type: number }
    output: { type: object }
    idempotency: { fingerprint: [customer_id, amount] }
${extra}`;

const good = `        per: [customer_id]
        window: 24h
        sum: amount
        max_sum: 50000
        max_count: 20
        tools: [refund_order, goodwill_credit]`;

const cases: { note: string; text: string; code: string; at: string }[] = [
  { note: "unknown field in a limit", text: source(good.replace("max_count:", "max_cont:")), code: "unknown_field", at: "21:9" },
  { note: "per names no input field", text: source(good.replace("per: [customer_id]", "per: [customer]")), code: "unknown_limit_field", at: "17:15" },
  { note: "sum not numeric", text: source(good.replace("sum: amount", "sum: note").replace("[customer_id, amount]", "[customer_id, amount, note]")), code: "limit_sum_not_numeric", at: "19:14" },
  { note: "window longer than retention", text: source(good.replace("window: 24h", "window: 30d")), code: "limit_window_longer_than_retention", at: "18:17" },
  { note: "unknown tool in tools", text: source(good.replace("tools: [refund_order, goodwill_credit]", "tools: [refund_order, goodwil_credit]")), code: "unknown_limit_tool", at: "22:31" },
  { note: "a limit field outside the fingerprint", text: source(good.replace("per: [customer_id]", "per: [note]")), code: "limit_field_not_in_fingerprint", at: "17:15" },
  { note: "a negative cap", text: source(good.replace("max_sum: 50000", "max_sum: -1")), code: "schema_violation", at: "20:18" },
  { note: "unknown natural key field", text: source(good, "", ", key: [order_id]"), code: "unknown_idempotency_key_field", at: "14:62" },
  {
    note: "a limit declared twice",
    text: source(good, "    limits:\n      refunds_per_customer: { window: 1h }\n"),
    code: "duplicate_limit",
    at: "16:7",
  },
];

describe("tools.yaml limits and natural keys are checked with located errors", () => {
  for (const c of cases) {
    it(`reports ${c.note} as ${c.code} at ${c.at}`, () => {
      const { loaded, errors } = loadToolsSource(c.text, "tools.yaml");
      expect(loaded).toBeNull();
      const found = errors.map((e) => `${e.code}@${e.location.row}:${e.location.col}`);
      expect(found).toContain(`${c.code}@${c.at}`);
      for (const e of errors) expect(e.hint).toBeTruthy();
    });
  }

  it("a valid limit and natural key give the manifest's limits and the covered tools' names", () => {
    const { loaded, errors } = loadToolsSource(source(good, "", ", key: [customer_id]"), "tools.yaml");
    expect(errors).toEqual([]);
    const m = loaded!.manifest;
    expect(m.limits).toEqual({
      refunds_per_customer: { name: "refunds_per_customer", per: ["customer_id"], window_ms: 86_400_000, sum: "amount", max_sum: 50_000, max_count: 20, tools: ["goodwill_credit", "refund_order"] },
    });
    expect(m.tools["refund_order"]?.limits).toEqual(["refunds_per_customer"]);
    expect(m.tools["goodwill_credit"]?.limits).toEqual(["refunds_per_customer"]);
    expect(m.tools["refund_order"]?.idempotency_key).toEqual(["customer_id"]);
    expect(m.tools["goodwill_credit"]?.idempotency_key).toBeUndefined();
  });
});
