/**
 * What a handler's thrown error becomes, on both stores: a read's undeclared error is retried
 * within the retry budget; a write's is an unknown outcome, reconciled before anything runs
 * again, or without a reconciler a terminal `outcome_unknown` that is never run again; marks
 * (`transient`, `permanent`) and tools.yaml `errors:` by code or name classify it; the model
 * sees a fixed text with an error id, the decision log the full text with sensitive values erased.
 */
import { beforeAll, expect, it } from "vitest";
import type { ToolHandlers } from "../../generated/index.js";
import { manifest } from "../../generated/index.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { permanent, transient } from "../../src/index.js";
import type { Envelope } from "../../src/runtime/index.js";
import { decisionIdOfError } from "../../src/runtime/thrown-errors.js";
import type { DecisionLogRecord, Store } from "../../src/store/store.js";
import { alice, approved, loadShippedPolicy, makeGate, reserveArgs, withTool } from "./harness.js";
import type { Gate, GateOptions } from "./harness.js";
import { describeEachStore } from "../helpers/stores.js";

/** The only text a model may get for an undeclared error (nothing of the error's own message). */
const SAFE = (tool: string) => new RegExp(`^${tool} failed \\(error (e_[0-9a-f]{32})\\); the operator can look it up`);

const errorIdIn = (e: Envelope): string => {
  if (e.outcome === "success") throw new Error(`expected a failure, got ${JSON.stringify(e)}`);
  const m = /\(error (e_[0-9a-f]{32})\)/.exec(e.message);
  if (m === null) throw new Error(`no error id in ${JSON.stringify(e.message)}`);
  return m[1]!;
};

/** The decision-log entry an error id names (the log is group-committed: flushed first). */
async function entryOf(store: Store, errorId: string): Promise<DecisionLogRecord> {
  await store.flushDecisions();
  const id = decisionIdOfError(errorId);
  if (id === null) throw new Error(`not an error id: ${errorId}`);
  const entry = await store.getDecision(id);
  if (entry === null) throw new Error(`no decision-log entry for ${errorId}`);
  return entry;
}

/** An Error with a Node-style `code`. */
const coded = (message: string, code: string): Error => Object.assign(new Error(message), { code });

/** A handler that throws `errors[i]` on its i-th run and runs `then` after them; counts its runs. */
function throwing<K extends keyof ToolHandlers>(errors: readonly unknown[], then: ToolHandlers[K]): { handler: ToolHandlers[K]; runs: () => number } {
  let runs = 0;
  const handler = (async (args: never, ctx: never) => {
    const i = runs++;
    if (i < errors.length) throw errors[i];
    return await (then as (a: never, c: never) => Promise<unknown>)(args, ctx);
  }) as unknown as ToolHandlers[K];
  return { handler, runs: () => runs };
}

describeEachStore("thrown handler errors", (stores) => {
  let policy: PolicyEngine;
  beforeAll(async () => {
    policy = await loadShippedPolicy();
  });

  const gate = async (over: Omit<GateOptions, "policy" | "store"> = {}): Promise<Gate> => makeGate({ policy, store: await stores.fresh(), ...over });

  it("a read's undeclared error is retryable_failure, and the retry within the budget succeeds", async () => {
    let reads: ReturnType<typeof throwing<"list_transactions">> | null = null;
    const g = await gate({
      handlers: (base) => {
        reads = throwing<"list_transactions">([new Error("kubectl: connection reset by peer")], base.list_transactions);
        return { list_transactions: reads.handler };
      },
    });
    const call = () => g.runtime.call(alice, { tool: "list_transactions", args: { account_id: "acc_alice" }, operation_id: "op-read" });
    const first = await call();
    expect(first).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error", operation_id: "op-read", message: expect.stringMatching(SAFE("list_transactions")) });
    expect(first.outcome === "retryable_failure" && first.retry_after_ms).toBe(manifest.tools.list_transactions!.retry.backoff.initial_ms);
    expect(await call()).toMatchObject({ outcome: "success", replayed: false });
    expect(reads!.runs()).toBe(2);
  });

  it("a read that keeps failing undeclared ends retry_exhausted after its budget and is not run again", async () => {
    const budget = manifest.tools.list_transactions!.retry.max_attempts;
    let reads: ReturnType<typeof throwing<"list_transactions">> | null = null;
    const g = await gate({
      handlers: (base) => {
        reads = throwing<"list_transactions">(Array.from({ length: 10 }, () => new Error("still down")), base.list_transactions);
        return { list_transactions: reads.handler };
      },
    });
    const call = () => g.runtime.call(alice, { tool: "list_transactions", args: { account_id: "acc_alice" }, operation_id: "op-read-down" });
    for (let i = 1; i < budget; i++) expect(await call()).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error" });
    expect(await call()).toMatchObject({ outcome: "terminal_failure", reason: "retry_exhausted", message: expect.stringMatching(SAFE("list_transactions")) });
    expect(await call()).toMatchObject({ outcome: "terminal_failure", reason: "retry_exhausted", replayed: true });
    expect(reads!.runs()).toBe(budget);
  });

  it("a write's undeclared error before its effect is reconciled on retry, found not applied, and run once more", async () => {
    let writes: ReturnType<typeof throwing<"reserve_funds">> | null = null;
    const g = await gate({
      handlers: (base) => {
        writes = throwing<"reserve_funds">([new Error("ledger: connection reset by peer")], base.reserve_funds);
        return { reserve_funds: writes.handler };
      },
    });
    const args = reserveArgs();
    const approval = await approved(g, alice, "reserve_funds", args, "op-w1");
    const call = () => g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-w1", approval_id: approval });
    const first = await call();
    expect(first).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error", message: expect.stringMatching(SAFE("reserve_funds")) });
    expect(first.outcome === "retryable_failure" && first.message).toContain("whether it took effect is unknown");
    expect(await g.store.getOperation(alice.tenant, "op-w1", g.clock.now())).toMatchObject({ status: "unknown" });
    expect(await call()).toMatchObject({ outcome: "success" });
    expect(writes!.runs()).toBe(2);
    expect(g.ledger.effectsOf("op-w1")).toHaveLength(1);
  });

  it("a write's undeclared error after its effect is reconciled on retry to the landed outcome, without running it again", async () => {
    let runs = 0;
    const g = await gate({
      handlers: (base) => ({
        reserve_funds: async (a, c) => {
          runs++;
          await base.reserve_funds(a, c); // the effect lands; then the answer is lost
          throw new Error("socket hang up");
        },
      }),
    });
    const args = reserveArgs();
    const approval = await approved(g, alice, "reserve_funds", args, "op-w2");
    const call = () => g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-w2", approval_id: approval });
    expect(await call()).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error" });
    expect(await call()).toMatchObject({ outcome: "success", resource_id: expect.stringMatching(/^res_/) });
    expect(await call()).toMatchObject({ outcome: "success", replayed: true });
    expect(runs).toBe(1);
    expect(g.ledger.effectsOf("op-w2")).toHaveLength(1);
  });

  it("a write's undeclared error without a reconciler is a terminal outcome_unknown, never run again under its operation id", async () => {
    let writes: ReturnType<typeof throwing<"reserve_funds">> | null = null;
    const g = await gate({
      reconcilers: () => ({}),
      handlers: (base) => {
        writes = throwing<"reserve_funds">([new Error("ledger: connection reset by peer")], base.reserve_funds);
        return { reserve_funds: writes.handler };
      },
    });
    const args = reserveArgs();
    const approval = await approved(g, alice, "reserve_funds", args, "op-w3");
    const call = () => g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-w3", approval_id: approval });
    const first = await call();
    expect(first).toMatchObject({ outcome: "terminal_failure", reason: "outcome_unknown", message: expect.stringMatching(SAFE("reserve_funds")) });
    expect(first.outcome === "terminal_failure" && first.message).toContain("has no reconciler");
    expect(await call()).toMatchObject({ outcome: "terminal_failure", reason: "outcome_unknown", replayed: true });
    expect(writes!.runs()).toBe(1);
  });

  it("a write that throws transient(err) runs again on retry within its budget, without reconciling", async () => {
    let writes: ReturnType<typeof throwing<"reserve_funds">> | null = null;
    let reconciled = 0;
    const g = await gate({
      reconcilers: () => ({
        reserve_funds: async () => {
          reconciled++;
          return { ok: "not_applied" };
        },
      }),
      handlers: (base) => {
        writes = throwing<"reserve_funds">([transient(new Error("pool exhausted"), { retryAfterMs: 250 })], base.reserve_funds);
        return { reserve_funds: writes.handler };
      },
    });
    const args = reserveArgs();
    const approval = await approved(g, alice, "reserve_funds", args, "op-w4");
    const call = () => g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-w4", approval_id: approval });
    expect(await call()).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error", retry_after_ms: 250, message: expect.stringContaining("reserve_funds failed with a transient error (error e_") });
    expect(await call()).toMatchObject({ outcome: "success" });
    expect(writes!.runs()).toBe(2);
    expect(reconciled).toBe(0);
    expect(g.ledger.effectsOf("op-w4")).toHaveLength(1);
  });

  it("a write that throws permanent(err) is a terminal permanent_error, not an unknown outcome", async () => {
    const g = await gate({ handlers: () => ({ reserve_funds: async () => { throw permanent(new Error("account locked by compliance")); } }) });
    const args = reserveArgs();
    const approval = await approved(g, alice, "reserve_funds", args, "op-w5");
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-w5", approval_id: approval });
    expect(e).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", message: expect.stringContaining("reserve_funds failed with a permanent error (error e_") });
    expect(JSON.stringify(e)).not.toContain("compliance");
  });

  it("a thrown error declared by code in tools.yaml gets the declared class and retry_after_ms, found along its cause", async () => {
    let reads: ReturnType<typeof throwing<"get_account">> | null = null;
    const g = await gate({
      handlers: (base) => {
        const reset = coded("read ECONNRESET 10.0.3.7:5432", "ECONNRESET");
        reads = throwing<"get_account">([reset, new Error("query failed", { cause: reset })], base.get_account);
        return { get_account: reads.handler };
      },
    });
    const call = () => g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" }, operation_id: "op-code" });
    for (let i = 0; i < 2; i++) {
      const e = await call();
      expect(e).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error", retry_after_ms: 500, message: expect.stringContaining("get_account failed with ECONNRESET (error e_") });
      expect(JSON.stringify(e)).not.toContain("10.0.3.7");
      expect((await entryOf(g.store, errorIdIn(e))).error).toMatchObject({ treated_as: "retryable", matched: "ECONNRESET" });
    }
    expect(await call()).toMatchObject({ outcome: "success" });
  });

  it("a thrown error declared permanent by name stops a write without an unknown outcome", async () => {
    const reserve = manifest.tools.reserve_funds!;
    let writes: ReturnType<typeof throwing<"reserve_funds">> | null = null;
    const g = await gate({
      manifest: withTool("reserve_funds", { errors: { ...(reserve.errors ?? {}), ValidationError: { class: "permanent" } } }),
      handlers: (base) => {
        const invalid = Object.assign(new Error("recipient acc_bob is blocked"), { name: "ValidationError" });
        writes = throwing<"reserve_funds">([invalid], base.reserve_funds);
        return { reserve_funds: writes.handler };
      },
    });
    const args = reserveArgs();
    const approval = await approved(g, alice, "reserve_funds", args, "op-name");
    const call = () => g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-name", approval_id: approval });
    expect(await call()).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", message: expect.stringContaining("reserve_funds failed with ValidationError (error e_") });
    expect(await call()).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", replayed: true });
    expect(writes!.runs()).toBe(1);
  });

  it("an undeclared error's message never reaches the envelope, is in the log by its error id, and a sensitive argument's value is erased there", async () => {
    const memo = "invoice 4471 for Dr. Jane Roe";
    const g = await gate({
      reconcilers: () => ({}),
      handlers: () => ({
        reserve_funds: async (a) => {
          throw new Error(`POST https://ledger.internal:8443/v1/holds?token=sk_live_9f8e7d6c5b4a failed for memo "${a.memo ?? ""}"`);
        },
      }),
    });
    const args = reserveArgs(1_000, { memo });
    const approval = await approved(g, alice, "reserve_funds", args, "op-secret");
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-secret", approval_id: approval });
    const text = JSON.stringify(e);
    for (const secret of ["sk_live_9f8e7d6c5b4a", "ledger.internal", memo]) expect(text).not.toContain(secret);
    const entry = await entryOf(g.store, errorIdIn(e));
    expect(entry.operation_id).toBe("op-secret");
    expect(entry.error).toMatchObject({ error_id: errorIdIn(e), treated_as: "outcome_unknown", matched: null, name: "Error", erased: ["memo"] });
    expect(entry.error!.message).toContain("token=sk_live_9f8e7d6c5b4a");
    expect(entry.error!.message).toContain('memo "[erased:memo]"');
    expect(JSON.stringify(entry)).not.toContain(memo);
    expect(entry.error!.stack).toContain("[erased:memo]");
  });

  it("a sensitive argument's value is erased from the log also where the message quotes it as JSON or in a URL", async () => {
    const memo = 'pay "Jane" & co/2026';
    const g = await gate({
      reconcilers: () => ({}),
      handlers: () => ({
        reserve_funds: async (a) => {
          throw new Error(`rejected body ${JSON.stringify({ memo: a.memo })} at /holds?memo=${encodeURIComponent(a.memo ?? "")}`);
        },
      }),
    });
    const args = reserveArgs(1_000, { memo });
    const approval = await approved(g, alice, "reserve_funds", args, "op-quoted");
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-quoted", approval_id: approval });
    const entry = await entryOf(g.store, errorIdIn(e));
    expect(entry.error!.message).toBe('rejected body {"memo":"[erased:memo]"} at /holds?memo=[erased:memo]');
  });

  it("an undeclared error's full message is logged as thrown when no sensitive argument appears in it", async () => {
    const g = await gate({ handlers: () => ({ get_account: async () => { throw new Error("kubectl: connection reset by peer (api.k8s.internal:6443)"); } }) });
    const e = await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    expect(e).toMatchObject({ outcome: "retryable_failure", message: expect.stringMatching(SAFE("get_account")) });
    expect(JSON.stringify(e)).not.toContain("k8s");
    const entry = await entryOf(g.store, errorIdIn(e));
    expect(entry.error).toMatchObject({ message: "kubectl: connection reset by peer (api.k8s.internal:6443)", erased: [], treated_as: "retryable" });
    expect(entry.error!.stack).toMatch(/^Error: kubectl/);
  });

  it("a handler interrupted mid-run answers interrupted with the operator's reason, never the text of what the handler threw", async () => {
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const g = await gate({
      handlers: () => ({
        get_account: (_a, c) =>
          new Promise((_resolve, reject) => {
            c.signal.addEventListener("abort", () => reject(new Error("aborted GET https://ledger.internal/acc?key=sk_live_77")));
            started();
          }),
      }),
    });
    const pending = g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    await running;
    await g.runtime.interrupt(alice, "user pressed stop");
    const e = await pending;
    expect(e).toMatchObject({ outcome: "terminal_failure", reason: "interrupted", message: expect.stringMatching(/^get_account stopped: run interrupted \(error e_[0-9a-f]{32}\)$/) });
    expect(JSON.stringify(e)).not.toContain("sk_live_77");
    expect((await entryOf(g.store, errorIdIn(e))).error).toMatchObject({ treated_as: "outcome_unknown", message: "aborted GET https://ledger.internal/acc?key=sk_live_77" });
    await g.runtime.resume(alice);
    // A handler that gives up with the interrupt itself: the operator's reason is the message.
    const g2 = await gate({
      handlers: () => ({
        get_account: (_a, c) =>
          new Promise((_resolve, reject) => {
            c.signal.addEventListener("abort", () => reject(c.signal.reason));
            started();
          }),
      }),
    });
    const again = new Promise<void>((r) => (started = r));
    const pending2 = g2.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    await again;
    await g2.runtime.interrupt(alice, "user pressed stop");
    expect(await pending2).toMatchObject({ reason: "interrupted", message: "get_account stopped: run interrupted (user pressed stop)" });
  });

  it("an error message holding a NUL character is still recorded with the write's outcome", async () => {
    const g = await gate({ reconcilers: () => ({}), handlers: () => ({ reserve_funds: async () => { throw new Error("bad byte \u0000 in reply"); } }) });
    const args = reserveArgs();
    const approval = await approved(g, alice, "reserve_funds", args, "op-nul");
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-nul", approval_id: approval });
    expect(e).toMatchObject({ outcome: "terminal_failure", reason: "outcome_unknown" });
    expect(await g.store.getOperation(alice.tenant, "op-nul", g.clock.now())).toMatchObject({ status: "final", envelope: { reason: "outcome_unknown" } });
    expect((await entryOf(g.store, errorIdIn(e))).error!.message).toBe("bad byte \\u0000 in reply");
  });
});
