import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decisionValues, resultText } from "../../src/store/rows.js";
import type { DecisionLogEntry } from "../../src/store/store.js";

function same(v: unknown): void {
  expect(resultText(v)).toBe(v === null || v === undefined ? null : JSON.stringify(v));
}

describe("decision-log result text", () => {
  it("is JSON.stringify's text for policy decisions, whatever the reason and flags, across cache reuse and eviction", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.string({ unit: "binary" }), fc.boolean(), (allow, reason, requires_approval) => {
        same({ allow, reason, requires_approval });
        same({ allow, reason, requires_approval }); // the kept text
        same({ allow: !allow, reason, requires_approval });
        same({ allow, reason, requires_approval: !requires_approval });
      }),
      { numRuns: 2000 },
    );
    for (let i = 0; i < 3000; i++) same({ allow: i % 2 === 0, reason: `reason_${i}`, requires_approval: i % 3 === 0 });
    for (const reason of ["", "read_allowed", 'q"uote', "back\\slash", "\n", "\u2028", "\ud800", "é", "__proto__"]) same({ allow: true, reason, requires_approval: false });
  });

  it("is JSON.stringify's text for any other result", () => {
    const proto = Object.create({ inherited: 1 }) as Record<string, unknown>;
    Object.assign(proto, { allow: true, reason: "r", requires_approval: false });
    const getters = {
      get allow() {
        return true;
      },
      reason: "r",
      requires_approval: false,
    };
    const withToJSON = { allow: true, reason: "r", requires_approval: false, toJSON: () => "x" };
    const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { allow: true, reason: "r", requires_approval: false });
    const hiddenToJSON = { allow: true, reason: "r", requires_approval: false };
    Object.defineProperty(hiddenToJSON, "toJSON", { value: () => "hidden", enumerable: false });
    for (const v of [
      null,
      undefined,
      true,
      3,
      "text",
      [1, 2],
      {},
      { reason: "r", allow: true, requires_approval: false },
      { allow: true, requires_approval: false, reason: "r" },
      { allow: true, reason: "r", requires_approval: false, extra: 1 },
      { allow: true, reason: "r" },
      { allow: 1, reason: "r", requires_approval: false },
      { allow: true, reason: 7, requires_approval: false },
      { allow: true, reason: "r", requires_approval: null },
      { allow: true, reason: "r", requires_approval: undefined },
      proto,
      getters,
      withToJSON,
      hiddenToJSON,
      nullProto,
    ]) {
      same(v);
    }
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      same(v);
    }), { numRuns: 500 });
  });

  it("writes erased as JSON, an empty list as []", () => {
    const base: DecisionLogEntry = {
      at_ms: 1,
      tenant: "t",
      run_id: "r",
      user: "u",
      tool: "x",
      operation_id: null,
      fingerprint: null,
      decision: "allow",
      reason: null,
      policy_version: null,
      outcome: "success",
      outcome_reason: null,
    };
    expect(decisionValues(base).erased).toBe("[]");
    expect(decisionValues({ ...base, erased: [] }).erased).toBe("[]");
    expect(decisionValues({ ...base, erased: ["/input/args/card", "/input/args/a~1b"] }).erased).toBe(JSON.stringify(["/input/args/card", "/input/args/a~1b"]));
    expect(decisionValues({ ...base, result: { allow: false, reason: "nope", requires_approval: true } }).result).toBe('{"allow":false,"reason":"nope","requires_approval":true}');
  });
});
