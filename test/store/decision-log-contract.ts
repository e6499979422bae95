/**
 * The decision-log contract, run by every store (test/store/sqlite.test.ts,
 * test/store/postgres.test.ts): OPA-shaped entries round-trip, filters, retention
 * purge, and group commit (batched entries are visible after flush, on read and to
 * another connection after close; `sync` entries are visible to another connection
 * as soon as append settles).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { DecisionLogOptions } from "../../src/store/decision-batch.js";
import type { DecisionLogEntry, Store } from "../../src/store/store.js";

export interface LogStoreUnderTest {
  readonly store: Store;
  /** A second connection on the same state. */
  readonly openPeer: () => Promise<Store>;
  readonly dispose?: () => Promise<void>;
}

const T0 = 1_700_000_000_000;

export const logEntry = (over: Partial<DecisionLogEntry> = {}): DecisionLogEntry => ({
  decision_id: "d-1",
  at_ms: T0,
  tenant: "t1",
  run_id: "run-1",
  user: "alice",
  tool: "reserve_funds",
  operation_id: "op-1",
  fingerprint: "a".repeat(64),
  decision: "deny",
  reason: "limit_exceeded",
  policy_version: "pv-1",
  outcome: "terminal_failure",
  outcome_reason: "policy_denied",
  path: "toolgate/authz/decision",
  input: { tool: "reserve_funds", args: { amount: 5, nested: { deep: [1, null, "x"] } }, principal: { tenant: "t1" } },
  result: { allow: false, reason: "limit_exceeded", requires_approval: false },
  erased: ["/input/args/card_number"],
  eval_ns: 12_345,
  shadow: { policy_version: "pv-2", decision: "allow", reason: "read_allowed", result: { allow: true }, eval_ns: 99, disagrees: true },
  error: { error_id: "e_1", treated_as: "retryable", matched: "ECONNRESET", name: "Error", code: "ECONNRESET", message: "read ECONNRESET", stack: "Error: read ECONNRESET\n    at x", erased: [] },
  expires_at_ms: T0 + 60_000,
  labels: { id: "gate-1", version: "0.1.0", service: "payments", region: "eu \"west\" ✓" },
  trace_id: "4bf92f3577b34da6a3ce929d0e0e4736",
  span_id: "00f067aa0ba902b7",
  ...over,
});

export function runDecisionLogContract(name: string, make: (opts: DecisionLogOptions) => Promise<LogStoreUnderTest>): void {
  describe(`decision log contract: ${name}`, () => {
    const opened: Store[] = [];
    let current: LogStoreUnderTest | null = null;
    const open = async (opts: DecisionLogOptions = {}): Promise<LogStoreUnderTest> => {
      current = await make(opts);
      opened.push(current.store);
      return current;
    };
    const peer = async (): Promise<Store> => {
      const p = await current!.openPeer();
      opened.push(p);
      return p;
    };
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
      await current?.dispose?.();
      current = null;
    });

    it("the decision log keeps the order of decisions: an outcome's entry follows entries appended before it, also while their batch is being written", async () => {
      // The 400th entry starts a batch write at once (on PostgreSQL on another connection, still in
      // flight when the outcome is sent: a large batch takes a while), so the outcome races it when unordered.
      const rows = 400;
      const { store } = await open({ maxBatchRows: rows });
      for (let round = 0; round < 4; round++) {
        const tenant = `t-order-${round}`;
        const claimed = await store.claimOperation({ tenant, operation_id: "op-order", tool: "reserve_funds", fingerprint: "f".repeat(64), owner: "w", now_ms: T0, lease_ms: 1_000, retention_ms: 60_000 });
        if (claimed.kind !== "claimed") throw new Error(claimed.kind);
        for (let i = 0; i < rows; i++) await store.appendDecision(logEntry({ decision_id: `before-${round}-${i}`, tenant, operation_id: null, at_ms: T0 + i }));
        const r = await store.recordOutcome({
          tenant, operation_id: "op-order", fence_token: 1, status: "final", envelope: { outcome: "success" }, now_ms: T0 + rows,
          decision: logEntry({ decision_id: `outcome-${round}`, tenant, operation_id: "op-order", at_ms: T0 + rows }),
        });
        expect(r.recorded).toBe(true);
        await store.flushDecisions();
        const newestFirst = (await store.listDecisions({ tenant, limit: rows + 1 })).map((d) => d.decision_id);
        expect(newestFirst).toEqual([`outcome-${round}`, ...Array.from({ length: rows }, (_, i) => `before-${round}-${rows - 1 - i}`)]);
      }
    });

    it("the decision log keeps one caller's order while another caller's outcome carries the queue", async () => {
      // Caller B's read is logged (queued), then B's write records its outcome, while caller X's
      // outcome carries queued entries in flight. B's read must come before B's write whether X's
      // outcome took it (then B's outcome commits after X's) or took the queue before it (then B's
      // outcome carries it).
      const rows = 400;
      const { store } = await open({ maxDelayMs: 60_000, maxBatchRows: 10_000 });
      const claim = async (tenant: string, operation_id: string): Promise<void> => {
        const c = await store.claimOperation({ tenant, operation_id, tool: "reserve_funds", fingerprint: "f".repeat(64), owner: "w", now_ms: T0, lease_ms: 1_000, retention_ms: 60_000 });
        if (c.kind !== "claimed") throw new Error(c.kind);
      };
      const outcome = (tenant: string, operation_id: string, decision_id: string) =>
        store.recordOutcome({
          tenant, operation_id, fence_token: 1, status: "final", envelope: { outcome: "success" }, now_ms: T0 + rows,
          decision: logEntry({ decision_id, tenant, operation_id, at_ms: T0 + rows }),
        });
      for (const bLogsFirst of [true, false]) {
        for (let round = 0; round < 3; round++) {
          const x = `t-x-${bLogsFirst}-${round}`;
          const b = `t-b-${bLogsFirst}-${round}`;
          await claim(x, "op-x");
          await claim(b, "op-b");
          for (let i = 0; i < rows; i++) await store.appendDecision(logEntry({ decision_id: `${x}-${i}`, tenant: x, operation_id: null, at_ms: T0 + i }));
          if (bLogsFirst) await store.appendDecision(logEntry({ decision_id: `${b}-read`, tenant: b, operation_id: null, at_ms: T0 + rows }));
          const carried = outcome(x, "op-x", `${x}-write`);
          if (!bLogsFirst) {
            // X's outcome has taken the queue and sent its statement by now.
            await new Promise((resolve) => setImmediate(resolve));
            await store.appendDecision(logEntry({ decision_id: `${b}-read`, tenant: b, operation_id: null, at_ms: T0 + rows }));
          }
          const [rx, rb] = await Promise.all([carried, outcome(b, "op-b", `${b}-write`)]);
          expect([rx.recorded, rb.recorded]).toEqual([true, true]);
          await store.flushDecisions();
          expect((await store.listDecisions({ tenant: b })).map((d) => d.decision_id)).toEqual([`${b}-write`, `${b}-read`]);
          expect((await store.listDecisions({ tenant: x, limit: 1 })).map((d) => d.decision_id)).toEqual([`${x}-write`]);
        }
      }
    });

    it("an entry round-trips every OPA decision-log field", async () => {
      const { store } = await open();
      await store.appendDecision(logEntry());
      const got = await store.getDecision("d-1");
      expect(got).toEqual(logEntry());
      expect(await store.getDecision("nope")).toBeNull();
    });

    it("an entry without the optional fields reads back with nulls, an empty erased list and a generated id", async () => {
      const { store } = await open();
      const { decision_id: _, path: _p, input: _i, result: _r, erased: _e, eval_ns: _n, shadow: _s, error: _err, expires_at_ms: _x, labels: _l, trace_id: _t, span_id: _sp, ...plain } = logEntry();
      await store.appendDecision(plain);
      const [got] = await store.listDecisions();
      expect(got).toEqual({ ...plain, decision_id: got!.decision_id, path: null, input: null, result: null, erased: [], eval_ns: null, shadow: null, error: null, expires_at_ms: null, labels: null, trace_id: null, span_id: null });
      expect(got!.decision_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await store.getDecision(got!.decision_id)).toEqual(got);
    });

    it("filters by tool, reason (policy's or envelope's), time and shadow disagreement", async () => {
      const { store } = await open();
      await store.appendDecision(logEntry({ decision_id: "a", at_ms: T0, tool: "get_account", reason: "read_allowed", outcome_reason: null, shadow: null }));
      await store.appendDecision(logEntry({ decision_id: "b", at_ms: T0 + 10, reason: null, decision: "not_evaluated", outcome_reason: "invalid_arguments" }));
      await store.appendDecision(logEntry({ decision_id: "c", at_ms: T0 + 20, shadow: { ...logEntry().shadow!, disagrees: false } }));
      const ids = async (q: Parameters<Store["listDecisions"]>[0]) => (await store.listDecisions(q)).map((d) => d.decision_id);
      expect(await ids({ tool: "get_account" })).toEqual(["a"]);
      expect(await ids({ reason: "invalid_arguments" })).toEqual(["b"]);
      expect(await ids({ reason: "limit_exceeded" })).toEqual(["c"]);
      expect(await ids({ since_ms: T0 + 10 })).toEqual(["c", "b"]);
      expect(await ids({ shadow_disagrees: true })).toEqual(["b"]);
      expect(await ids({ shadow_disagrees: false })).toEqual(["c"]);
    });

    it("purgeExpired deletes entries past their retention and keeps the others", async () => {
      const { store } = await open();
      await store.appendDecision(logEntry({ decision_id: "old", expires_at_ms: T0 + 1_000 }));
      await store.appendDecision(logEntry({ decision_id: "new", expires_at_ms: T0 + 5_000 }));
      await store.appendDecision(logEntry({ decision_id: "kept", expires_at_ms: null }));
      expect(await store.purgeExpired(T0 + 999)).toBe(0);
      expect(await store.purgeExpired(T0 + 1_000)).toBe(1);
      expect((await store.listDecisions()).map((d) => d.decision_id).sort()).toEqual(["kept", "new"]);
      expect(await store.purgeExpired(T0 + 10_000_000)).toBe(1);
      expect((await store.listDecisions()).map((d) => d.decision_id)).toEqual(["kept"]);
    });

    it("batched: many entries are written together, visible to another connection after flush, in order", async () => {
      const { store } = await open({ maxDelayMs: 60_000, maxBatchRows: 10_000 });
      const other = await peer();
      for (let i = 0; i < 50; i++) await store.appendDecision(logEntry({ decision_id: `b-${i}`, at_ms: T0 + i }));
      // Queued, not committed: the other connection sees nothing yet.
      expect(await other.listDecisions()).toEqual([]);
      await store.flushDecisions();
      const seen = await other.listDecisions({ limit: 100 });
      expect(seen.map((d) => d.decision_id)).toEqual(Array.from({ length: 50 }, (_, i) => `b-${49 - i}`));
    });

    it("batched: batches written one per entry keep the order of the decisions", async () => {
      // Every append fills a batch, so many batch writes are in flight at once.
      const { store } = await open({ maxDelayMs: 60_000, maxBatchRows: 1 });
      for (let i = 0; i < 40; i++) await store.appendDecision(logEntry({ decision_id: `o-${i}`, at_ms: T0 + i }));
      await store.flushDecisions();
      const seen = await store.listDecisions({ limit: 100 });
      expect(seen.map((d) => d.decision_id)).toEqual(Array.from({ length: 40 }, (_, i) => `o-${39 - i}`));
    });

    it("batched: a full batch is written without waiting for the delay", async () => {
      const { store } = await open({ maxDelayMs: 60_000, maxBatchRows: 5 });
      const other = await peer();
      for (let i = 0; i < 5; i++) await store.appendDecision(logEntry({ decision_id: `f-${i}` }));
      await expect.poll(async () => (await other.listDecisions()).length, { timeout: 2_000 }).toBe(5);
    });

    it("batched: queued entries are written within the delay", async () => {
      const { store } = await open({ maxDelayMs: 5 });
      const other = await peer();
      await store.appendDecision(logEntry({ decision_id: "t-1" }));
      await expect.poll(async () => (await other.listDecisions()).length, { timeout: 2_000 }).toBe(1);
    });

    it("batched: reads on the same store see its own queued entries", async () => {
      const { store } = await open({ maxDelayMs: 60_000 });
      await store.appendDecision(logEntry({ decision_id: "own" }));
      expect((await store.listDecisions()).map((d) => d.decision_id)).toEqual(["own"]);
      expect(await store.getDecision("own")).not.toBeNull();
    });

    it("batched: close writes what is queued", async () => {
      const { store } = await open({ maxDelayMs: 60_000 });
      const other = await peer();
      await store.appendDecision(logEntry({ decision_id: "at-close" }));
      await store.close();
      expect((await other.listDecisions()).map((d) => d.decision_id)).toEqual(["at-close"]);
    });

    it("sync durability: an entry is committed before append settles", async () => {
      const { store } = await open({ durability: "sync" });
      const other = await peer();
      await store.appendDecision(logEntry({ decision_id: "s-1" }));
      expect((await other.listDecisions()).map((d) => d.decision_id)).toEqual(["s-1"]);
    });

    it("an entry appended after close is refused or reported, never silently dropped", async () => {
      const errors: unknown[] = [];
      const { store } = await open({ maxDelayMs: 1, onError: (e) => errors.push(e) });
      await store.close();
      const rejected = await store.appendDecision(logEntry({ decision_id: "late" })).then(() => false, () => true);
      if (!rejected) await expect.poll(() => errors.length, { timeout: 2_000 }).toBe(1);
      expect(rejected || String(errors[0]).includes("closed")).toBe(true);
    });

    it("a failed batch write is reported, not thrown at the caller", async () => {
      const errors: unknown[] = [];
      const { store } = await open({ maxDelayMs: 60_000, onError: (e) => errors.push(e) });
      await store.appendDecision(logEntry({ decision_id: "dup" }));
      await store.appendDecision(logEntry({ decision_id: "dup" }));
      await store.flushDecisions();
      expect(errors).toHaveLength(1);
    });
  });
}
