// The decision-log rows reach PostgreSQL as one JSON array whose input, erased list and
// shadow answer are embedded JSON (the result is text inside it): every JSON shape reads
// back exactly, through the group-committed batch and through the outcome's statement.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPgStore } from "../../src/store/postgres/index.js";
import type { DecisionLogEntry, Store } from "../../src/store/store.js";
import { createTestSchema, skipWithoutPg, type TestSchema } from "../helpers/pg-env.js";
import { logEntry } from "./decision-log-contract.js";

const skip = skipWithoutPg("postgres decision rows");
const T0 = 1_700_000_000_000;

const awkward = {
  quotes: 'say "hi" \\ back\\slash',
  unicode: "naïve ✓ \u2028 \u0001",
  numbers: [0, -1, 1.5, 1e21, 123456789012],
  empty: { a: {}, b: [], c: "" },
  nulls: { x: null, list: [null, false, true] },
};

const results: readonly (DecisionLogEntry["result"] | undefined)[] = [
  { allow: false, reason: "limit_exceeded", nested: awkward },
  false,
  0,
  "",
  "a \"quoted\" string",
  [],
  [null],
  null,
  undefined,
];

describe.skipIf(skip)("postgres decision-log rows", () => {
  let env: TestSchema;
  let store: Store;
  beforeAll(async () => {
    env = await createTestSchema();
    store = await openPgStore({ pool: env.pool });
  });
  afterAll(async () => {
    await store?.close();
    await env?.drop();
  });

  const entries = (prefix: string, op: string): DecisionLogEntry[] =>
    results.map((result, k) => {
      const { result: _none, ...withoutResult } = logEntry();
      return {
        ...withoutResult,
        decision_id: `${prefix}-${k}`,
        at_ms: T0 + k,
        operation_id: op,
        input: k === results.length - 1 ? null : { tool: "reserve_funds", args: { k, ...awkward } },
        ...(result === undefined ? {} : { result }),
        erased: k % 2 === 0 ? ["/input/args/card_number", "/input/args/a\"b"] : [],
        shadow: k % 3 === 0 ? null : { policy_version: "pv-2", decision: "allow", reason: "r", result: k % 2 === 0 ? null : awkward, eval_ns: k, disagrees: k % 2 === 0 },
        error:
          k % 2 === 0
            ? null
            : { error_id: `e_${k}`, treated_as: "outcome_unknown", matched: null, name: "Error", code: "E\"x\u00e9", message: `reset by ${JSON.stringify(awkward)}`, stack: null, erased: ["memo"] },
      };
    });
  const expected = (e: DecisionLogEntry) => ({ ...e, result: e.result ?? null, input: e.input ?? null, error: e.error ?? null });

  it("round-trip through the group-committed batch", async () => {
    const batch = entries("batch", "op-batch");
    for (const e of batch) await store.appendDecision(e);
    await store.flushDecisions();
    for (const e of batch) expect(await store.getDecision(e.decision_id!)).toEqual(expected(e));
  });

  const claimOp = async (op: string) => {
    const claim = await store.claimOperation({
      tenant: "t1", operation_id: op, tool: "reserve_funds", fingerprint: "a".repeat(64), owner: "w",
      now_ms: T0, lease_ms: 1_000, retention_ms: 60_000,
    });
    expect(claim.kind).toBe("claimed");
  };

  it("round-trip through the outcome's statement carrying the call's own entry alone", async () => {
    const own = entries("alone", "unused");
    for (const [k, e] of own.entries()) {
      const op = `op-alone-${k}`;
      await claimOp(op);
      const entry = { ...e, operation_id: op };
      const rec = await store.recordOutcome({
        tenant: "t1", operation_id: op, fence_token: 1, status: "final", envelope: { outcome: "success", value: awkward }, now_ms: T0 + 1,
        decision: entry,
      });
      expect(rec.recorded).toBe(true);
      expect(await store.getDecision(e.decision_id!)).toEqual(expected(entry));
    }
  });

  it("writes the call's own entry only when the outcome is recorded", async () => {
    await claimOp("op-stale");
    const [entry] = entries("stale", "op-stale");
    const rec = await store.recordOutcome({
      tenant: "t1", operation_id: "op-stale", fence_token: 2, status: "final", envelope: { outcome: "success" }, now_ms: T0 + 1,
      decision: entry!,
    });
    expect(rec).toMatchObject({ recorded: false, why: "stale_fence" });
    expect(await store.getDecision(entry!.decision_id!)).toBeNull();
  });

  it("round-trip through the outcome's statement, queued entries first", async () => {
    const [own, ...queued] = entries("outcome", "op-outcome");
    const claim = await store.claimOperation({
      tenant: "t1", operation_id: "op-outcome", tool: "reserve_funds", fingerprint: "a".repeat(64), owner: "w",
      now_ms: T0, lease_ms: 1_000, retention_ms: 60_000,
    });
    expect(claim.kind).toBe("claimed");
    for (const e of queued) await store.appendDecision(e);
    const rec = await store.recordOutcome({
      tenant: "t1", operation_id: "op-outcome", fence_token: 1, status: "final", envelope: { outcome: "success", value: awkward }, now_ms: T0 + 1,
      decision: own!,
    });
    expect(rec.recorded).toBe(true);
    for (const e of [own!, ...queued]) expect(await store.getDecision(e.decision_id!)).toEqual(expected(e));
    const listed = await store.listDecisions({ operation_id: "op-outcome" });
    // Newest first: the call's own entry follows the queued ones, which keep their order.
    expect(listed.map((d) => d.decision_id)).toEqual([...queued, own!].map((e) => e.decision_id).reverse());
  });
});
