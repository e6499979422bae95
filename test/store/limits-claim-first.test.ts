/**
 * Claim-first with limits at the store, many claims of one key at once (on PostgreSQL over
 * several pooled connections): a claim is made only when the call fits the cap on the figures
 * read under the key's lock, so together they never pass it, and each answers the figures of the
 * claims committed before it. On every store.
 */
import { beforeEach, expect, it } from "vitest";
import type { ClaimFirstRequest, LimitClaim, Store } from "../../src/store/store.js";
import { describeEachStore } from "../helpers/stores.js";

const limit: LimitClaim = { name: "cap", key: '["acc"]', window_ms: 86_400_000, amount: 100, max_sum: 1_000, max_count: null, seen: null };
const first = (i: number, now: number): ClaimFirstRequest => ({
  tenant: "t", operation_id: `op-${i}`, tool: "reserve_funds", fingerprint: `f-${i}`, owner: `w${i}`, now_ms: now, lease_ms: 60_000, retention_ms: 86_400_000,
  guard: { run_id: "run", approval_id: null }, interrupt: true, limits: [limit],
});

describeEachStore("claim-first with limits", (stores) => {
  let store: Store;
  beforeEach(async () => {
    store = await stores.fresh();
  });

  it("concurrent claim-first calls of one key never claim past max_sum, and each saw the claims committed before it", async () => {
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => store.claimFirst(first(i, now))));
    const claimed = results.filter((r) => r.claimed !== null);
    expect(claimed).toHaveLength(10);
    // The claims took turns on the key: their figures are 0, 100, ..., 900, each once.
    expect(claimed.map((r) => r.figures?.["cap"]?.sum).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    for (const r of results.filter((x) => x.claimed === null)) expect(r.figures?.["cap"]).toEqual({ count: 10, sum: 1_000 });
    expect(await store.readLimitFigures({ tenant: "t", operation_id: null, now_ms: now, keys: [limit] })).toEqual({ cap: { count: 10, sum: 1_000 } });
  });

  it("a given-back claim-first claim no longer counts", async () => {
    const now = Date.now();
    const r = await store.claimFirst(first(0, now));
    expect(r.claimed).not.toBeNull();
    expect(await store.readLimitFigures({ tenant: "t", operation_id: null, now_ms: now, keys: [limit] })).toEqual({ cap: { count: 1, sum: 100 } });
    expect(await store.releaseClaim(r.claimed!.record)).toBe(true);
    expect(await store.readLimitFigures({ tenant: "t", operation_id: null, now_ms: now, keys: [limit] })).toEqual({ cap: { count: 0, sum: 0 } });
  });

  it("a claim-first key with quotes, backslashes, commas, braces or NULL in it is counted as written, apart from every other key", async () => {
    const now = Date.now();
    const keys = ['["a\\"b"]', '["a,b"]', '["{a}"]', '["NULL"]', "[null]", '["a b"]', '["a\\\\b"]'];
    const limits = (key: string, i: number): LimitClaim[] => [
      { ...limit, name: "cap", key, amount: i + 1 },
      { ...limit, name: 'other "cap"', key, amount: 1, max_sum: null, max_count: 100 },
    ];
    for (const [i, key] of keys.entries()) {
      const r = await store.claimFirst({ ...first(i, now), limits: limits(key, i) });
      expect(r.claimed).not.toBeNull();
      expect(r.figures).toEqual({ cap: { count: 0, sum: 0 }, 'other "cap"': { count: 0, sum: 0 } });
    }
    for (const [i, key] of keys.entries()) {
      expect(await store.readLimitFigures({ tenant: "t", operation_id: null, now_ms: now, keys: limits(key, i) })).toEqual({ cap: { count: 1, sum: i + 1 }, 'other "cap"': { count: 1, sum: 1 } });
    }
  });
});
