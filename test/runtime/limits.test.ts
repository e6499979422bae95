/**
 * Spend and rate limits (tools.yaml `limits:`) and natural idempotency keys
 * (`idempotency.key`), end to end through the runtime, on every store (SQLite, and
 * PostgreSQL when TOOLGATE_PG_URL is set). One test per guarantee.
 */
import { beforeEach, expect, it } from "vitest";
import { manifest } from "../../generated/index.js";
import type { LimitSpec, Manifest } from "../../src/manifest.js";
import type { PolicyDecision, PolicyEngine, PolicyInput } from "../../src/policy/engine.js";
import type { Envelope } from "../../src/runtime/index.js";
import type { Store } from "../../src/store/store.js";
import { callHashes, operationFingerprint } from "../../src/call-data/fingerprint.js";
import { alice, makeGate, reserveArgs } from "./harness.js";
import type { Gate } from "./harness.js";
import { describeEachStore } from "../helpers/stores.js";

const cap: LimitSpec = { name: "reserved_per_account", per: ["account_id"], window_ms: 86_400_000, sum: "amount", max_sum: 5_000, max_count: null, tools: ["reserve_funds"] };

/** The escrow manifest with a limit on reserve_funds and/or a natural key. */
function limitedManifest(limit: Partial<LimitSpec> | null, key?: readonly string[]): Manifest {
  const tool = manifest.tools["reserve_funds"]!;
  const spec = limit === null ? null : { ...cap, ...limit };
  return {
    ...manifest,
    tools: {
      ...manifest.tools,
      reserve_funds: { ...tool, ...(spec === null ? {} : { limits: [spec.name] }), ...(key === undefined ? {} : { idempotency_key: key }) },
    },
    ...(spec === null ? {} : { limits: { [spec.name]: spec } }),
  };
}

/** Allows every call, unless `rule` answers otherwise; records every input it saw. */
function allowing(seen: PolicyInput[], rule: (input: PolicyInput) => PolicyDecision | null = () => null): PolicyEngine {
  return {
    version: "test-allow",
    async evaluate(input) {
      seen.push(input);
      return rule(input) ?? { allow: true, reason: "test_allows", requires_approval: false };
    },
  };
}

const ok = (e: Envelope): boolean => e.outcome === "success" && !e.replayed;
const reasonOf = (e: Envelope): string => (e.outcome === "success" ? (e.replayed ? "replayed" : "success") : e.reason);

describeEachStore("limits and natural keys", (stores) => {
  let store: Store;
  beforeEach(async () => {
    store = await stores.fresh();
  });

  const gateWith = (m: Manifest, policy: PolicyEngine, extra: Partial<Parameters<typeof makeGate>[0]> = {}): Gate =>
    makeGate({ policy, store, manifest: m, ...extra });

  it("input.limits holds the count and sum of the key's calls in the window before this call", async () => {
    const seen: PolicyInput[] = [];
    const gate = gateWith(limitedManifest({}), allowing(seen));
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-a" }))).toBe("success");
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(700), operation_id: "op-b" }))).toBe("success");
    // Another key (another account) has figures of its own.
    await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(300, { account_id: "acc_bob" }), operation_id: "op-c" });
    await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(5), operation_id: "op-d" });
    expect(seen.map((i) => i.limits?.["reserved_per_account"])).toEqual([
      { count: 0, sum: 0 },
      { count: 1, sum: 1_000 },
      { count: 0, sum: 0 },
      { count: 2, sum: 1_700 },
    ]);
    // The window slides: a day later the earlier calls no longer count.
    gate.clock.advance(86_400_001);
    await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(6), operation_id: "op-e" });
    expect(seen.at(-1)?.limits?.["reserved_per_account"]).toEqual({ count: 0, sum: 0 });
  });

  it("a call that does not fit max_sum is refused limit_exceeded and runs nothing", async () => {
    const gate = gateWith(limitedManifest({}), allowing([]));
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(4_000), operation_id: "op-1" }))).toBe("success");
    const refused = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_001), operation_id: "op-2" });
    expect(refused).toMatchObject({ outcome: "terminal_failure", reason: "limit_exceeded", limit: { name: "reserved_per_account", count: 1, sum: 4_000, max_sum: 5_000 } });
    expect(gate.ledger.effectsOf("op-2")).toHaveLength(0);
    // Exactly what fits still runs.
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-3" }))).toBe("success");
  });

  it("max_count caps the number of calls of a key in the window", async () => {
    const gate = gateWith(limitedManifest({ max_sum: null, max_count: 2 }), allowing([]));
    for (const id of ["op-1", "op-2"]) expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(10), operation_id: id }))).toBe("success");
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(11), operation_id: "op-3" }))).toBe("limit_exceeded");
  });

  it("a failed call whose effect did not happen does not count", async () => {
    const seen: PolicyInput[] = [];
    const gate = gateWith(limitedManifest({}), allowing(seen));
    // acc_frozen does not exist: the handler answers a permanent domain failure, no effect.
    const failed = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(4_500, { account_id: "acc_nobody" }), operation_id: "op-f" });
    expect(failed.outcome).toBe("terminal_failure");
    await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(4_500, { account_id: "acc_nobody" }), operation_id: "op-g" });
    expect(seen.at(-1)?.limits?.["reserved_per_account"]).toEqual({ count: 0, sum: 0 });
  });

  it("a crashed call keeps counting after its lease runs out until a retry with its operation id reconciles it", async () => {
    const seen: PolicyInput[] = [];
    const m = limitedManifest({});
    const gate = gateWith(m, allowing(seen));
    // A worker claimed 4,000 and died before its handler recorded anything (its effect may have happened).
    const args = reserveArgs(4_000);
    const tool = m.tools["reserve_funds"]!;
    const claimed = await store.claimOperation({
      tenant: alice.tenant, operation_id: "op-crashed", tool: "reserve_funds", fingerprint: operationFingerprint(callHashes(alice.tenant, tool.name, args, tool.fingerprint).fingerprint, alice.user),
      owner: "dead", now_ms: gate.clock.now(), lease_ms: 10_000, retention_ms: 86_400_000,
      limits: [{ name: cap.name, key: JSON.stringify(["acc_alice"]), window_ms: cap.window_ms, amount: 4_000, max_sum: 5_000, max_count: null, seen: null }],
    });
    expect(claimed.kind).toBe("claimed");
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_001), operation_id: "op-1" }))).toBe("limit_exceeded");
    gate.clock.advance(10_001);
    // Its lease ran out, but nobody knows yet whether it reserved: it still counts.
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_001), operation_id: "op-2" }))).toBe("limit_exceeded");
    expect(seen.at(-1)?.limits?.["reserved_per_account"]).toEqual({ count: 1, sum: 4_000 });
    // The retry reconciles (nothing was reserved), runs it and counts it once.
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-crashed" }))).toBe("success");
    expect(gate.ledger.effectsOf("op-crashed")).toHaveLength(1);
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-3" }))).toBe("success");
    expect(seen.at(-1)?.limits?.["reserved_per_account"]).toEqual({ count: 1, sum: 4_000 });
  });

  it("two concurrent calls never both pass a max_sum that only one of them fits", async () => {
    const gate = gateWith(limitedManifest({}), allowing([]));
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000 + i), operation_id: `op-${i}` })),
    );
    const executed = answers.filter(ok).length;
    const sum = gate.ledger.effects.length === 0 ? 0 : answers.reduce((s, e, i) => s + (ok(e) ? 1_000 + i : 0), 0);
    expect(gate.ledger.effects).toHaveLength(executed);
    expect(sum).toBeLessThanOrEqual(5_000);
    expect(executed).toBe(4);
    expect(answers.filter((e) => reasonOf(e) === "limit_exceeded")).toHaveLength(8);
  });

  /** A policy that asks for an approval of every write without one; the calls are then approved. */
  const approvingFirst = (seen: PolicyInput[]): PolicyEngine =>
    allowing(seen, (i) => (i.approval?.decision === "approve" ? null : { allow: false, reason: "needs_approval", requires_approval: true }));
  async function approvedCalls(gate: Gate, amounts: readonly number[]): Promise<string[]> {
    const ids: string[] = [];
    for (const [i, amount] of amounts.entries()) {
      const asked = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(amount), operation_id: `op-${i}` });
      const id = asked.outcome === "terminal_failure" ? (asked.approval_id ?? "") : "";
      expect((await gate.runtime.approvals.decide(id, { decision: "approve" }, { tenant: alice.tenant, user: "bob", roles: ["approver"] })).ok).toBe(true);
      ids.push(id);
    }
    return ids;
  }

  it("concurrent approved calls claim first with their figures and never both pass a max_sum that only one of them fits", async () => {
    const seen: PolicyInput[] = [];
    const gate = gateWith(limitedManifest({}), approvingFirst(seen));
    const amounts = Array.from({ length: 12 }, (_, i) => 1_000 + i);
    const approvals = await approvedCalls(gate, amounts);
    seen.length = 0;
    const answers = await Promise.all(amounts.map((a, i) => gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(a), operation_id: `op-${i}`, approval_id: approvals[i]! })));
    const executedSum = answers.reduce((s, e, i) => s + (ok(e) ? amounts[i]! : 0), 0);
    expect(gate.ledger.effects).toHaveLength(answers.filter(ok).length);
    expect(executedSum).toBeLessThanOrEqual(5_000);
    expect(answers.filter(ok)).toHaveLength(4);
    expect(answers.filter((e) => reasonOf(e) === "limit_exceeded")).toHaveLength(8);
    // Each executed call was decided on the figures of the calls claimed before it.
    const decided = seen.filter((i) => i.approval !== null).map((i) => i.limits?.["reserved_per_account"]?.count);
    expect(new Set(decided.slice(0, 4))).toEqual(new Set([0, 1, 2, 3]));
  });

  it("an approved call with limits is one store round trip before its handler: claim-first reads its figures, and nothing reads them again", async () => {
    const calls: string[] = [];
    const counted = new Proxy(store, {
      get(target, key, receiver) {
        const v = Reflect.get(target, key, receiver) as unknown;
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          calls.push(String(key));
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const gate = makeGate({ policy: approvingFirst([]), store: counted, manifest: limitedManifest({}) });
    const [approval] = await approvedCalls(gate, [1_000]);
    calls.length = 0;
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-0", approval_id: approval! }))).toBe("success");
    const before = calls.slice(0, calls.indexOf("recordOutcome"));
    expect(before.filter((c) => c === "claimFirst")).toHaveLength(1);
    expect(before.filter((c) => c === "readLimitFigures" || c === "claimOperation" || c === "readCallState")).toEqual([]);
  });

  it("a policy threshold on input.limits holds at commit: a call decided on figures that moved is decided again", async () => {
    // Above 2,500 reserved for the account today, a call needs approval.
    const rule = (i: PolicyInput): PolicyDecision | null => {
      const used = i.limits?.["reserved_per_account"]?.sum ?? 0;
      return used + Number(i.args["amount"]) > 2_500 && i.approval === null ? { allow: false, reason: "above_daily_threshold", requires_approval: true } : null;
    };
    const gate = gateWith(limitedManifest({ max_sum: null }), allowing([], rule));
    const answers = await Promise.all([0, 1, 2, 3].map((i) => gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000 + i), operation_id: `op-${i}` })));
    expect(answers.filter(ok)).toHaveLength(2);
    expect(answers.filter((e) => reasonOf(e) === "approval_required")).toHaveLength(2);
    expect(gate.ledger.effects).toHaveLength(2);
  });

  it("a call waiting for approval does not hold the limit and is checked again when it runs", async () => {
    const rule = (i: PolicyInput): PolicyDecision | null =>
      Number(i.args["amount"]) > 3_000 && i.approval?.decision !== "approve" ? { allow: false, reason: "large_needs_approval", requires_approval: true } : null;
    const gate = gateWith(limitedManifest({}), allowing([], rule));
    const asked = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(4_000), operation_id: "op-big" });
    expect(reasonOf(asked)).toBe("approval_required");
    // While it waits, smaller calls use the limit it would have needed.
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(2_000), operation_id: "op-small" }))).toBe("success");
    const approvalId = asked.outcome === "terminal_failure" ? asked.approval_id! : "";
    const decided = await gate.runtime.approvals.decide(approvalId, { decision: "approve" }, { tenant: alice.tenant, user: "bob", roles: ["approver"] });
    expect(decided.ok).toBe(true);
    const run = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(4_000), operation_id: "op-big", approval_id: approvalId });
    expect(reasonOf(run)).toBe("limit_exceeded");
    expect(gate.ledger.effectsOf("op-big")).toHaveLength(0);
  });

  it("calls with the same natural key are one operation whatever operation_id the model sends", async () => {
    const gate = gateWith(limitedManifest(null, ["account_id", "recipient"]), allowing([]));
    const first = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(100), operation_id: "model-1" });
    const again = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(100), operation_id: "model-2" });
    const noId = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(100) });
    expect([reasonOf(first), reasonOf(again), reasonOf(noId)]).toEqual(["success", "replayed", "replayed"]);
    expect(gate.ledger.effects).toHaveLength(1);
    // Concurrent calls with fresh ids and the same key: still one effect.
    const other = reserveArgs(100, { recipient: "acc_carol" });
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => gate.runtime.call(alice, { tool: "reserve_funds", args: other, operation_id: `burst-${i}` })));
    expect(burst.filter(ok)).toHaveLength(1);
    expect(gate.ledger.effects).toHaveLength(2);
  });

  it("a different fingerprint under the same natural key answers idempotency_conflict", async () => {
    const gate = gateWith(limitedManifest(null, ["account_id", "recipient"]), allowing([]));
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(100), operation_id: "a" }))).toBe("success");
    const conflict = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(200), operation_id: "b" });
    expect(conflict).toMatchObject({ outcome: "terminal_failure", reason: "idempotency_conflict" });
    expect(gate.ledger.effects).toHaveLength(1);
  });

  it("the same natural key from another user of the tenant is a conflict, never a replay of the first user's outcome", async () => {
    const gate = gateWith(limitedManifest(null, ["account_id", "recipient"]), allowing([]));
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(100), operation_id: "a" }))).toBe("success");
    const other = await gate.runtime.call({ ...alice, user: "carol" }, { tool: "reserve_funds", args: reserveArgs(100), operation_id: "b" });
    expect(reasonOf(other)).toBe("idempotency_conflict");
    expect(gate.ledger.effects).toHaveLength(1);
  });

  it("a natural key holds only inside retention", async () => {
    const gate = gateWith(limitedManifest(null, ["account_id", "recipient"]), allowing([]));
    await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(100), operation_id: "a" });
    gate.clock.advance(manifest.tools["reserve_funds"]!.retention_ms + 1);
    expect(reasonOf(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(100), operation_id: "b" }))).toBe("success");
    expect(gate.ledger.effects).toHaveLength(2);
  });

  it("a model-sent operation_id cannot take a natural key's record", async () => {
    const gate = gateWith(limitedManifest(null, ["account_id", "recipient"]), allowing([]));
    const forged = await gate.runtime.call(alice, { tool: "release_funds", args: { reservation_id: "r_1", reason: "x" }, operation_id: "key~reserve_funds~abc" });
    expect(forged).toMatchObject({ outcome: "terminal_failure", reason: "invalid_arguments" });
  });
});
