/**
 * Text a store cannot hold alike (NUL, unpaired surrogates), on both stores: from the model it
 * is refused with invalid_arguments before anything is stored; in an answer the gate records
 * (a handler's error message) it is replaced, so every terminal answer is recorded and
 * replayed. No exception's text reaches the model.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { permanent } from "../../src/runtime/handler-errors.js";
import type { Envelope } from "../../src/runtime/index.js";
import type { Store } from "../../src/store/store.js";
import { alice, approved, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const op = (s: string) => `${s}-${randomUUID().slice(0, 8)}`;
const problemsOf = (e: Envelope): readonly string[] => (e.outcome === "terminal_failure" ? (e.problems ?? []) : []);

describeEachStore("unstorable text", (stores) => {
  let policy: PolicyEngine;
  beforeAll(async () => {
    policy = await loadShippedPolicy();
  });

  it("a NUL or an unpaired surrogate in an argument, operation_id or approval_id is invalid_arguments on every store, and nothing is stored", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const id = op("op-nul");
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), id);
    const cases: [string, Record<string, unknown>][] = [
      ["/memo", { args: reserveArgs(1_000, { memo: "rent\u0000" }), operation_id: id, approval_id }],
      ["/memo", { args: reserveArgs(1_000, { memo: "rent\ud800" }), operation_id: id, approval_id }],
      ["/memo", { args: reserveArgs(1_000, { memo: "\udc00rent" }), operation_id: id, approval_id }],
      ["operation_id", { args: reserveArgs(), operation_id: `${id}\u0000`, approval_id }],
      ["operation_id", { args: reserveArgs(), operation_id: `${id}\ud83d`, approval_id }],
      ["approval_id", { args: reserveArgs(), operation_id: id, approval_id: `${approval_id}\u0000` }],
      ["approval_id", { args: reserveArgs(), operation_id: id, approval_id: `\udfff${approval_id}` }],
    ];
    for (const [where, request] of cases) {
      const e = await g.runtime.call(alice, { tool: "reserve_funds", ...request } as never);
      expect(e, JSON.stringify(request)).toMatchObject({ outcome: "terminal_failure", reason: "invalid_arguments" });
      expect(problemsOf(e).join(" ")).toContain(where);
      expect(JSON.stringify(e)).not.toMatch(/internal error|unsupported Unicode/);
    }
    // Each refusal is in the decision log: its text was made storable, so no log batch failed.
    const refused = (await g.store.listDecisions({ tenant: alice.tenant })).filter((r) => r.outcome_reason === "invalid_arguments");
    expect(refused).toHaveLength(cases.length);
    // A paired surrogate (an emoji) is ordinary text.
    expect(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" }, operation_id: op("op-\ud83d\ude00") })).toMatchObject({ outcome: "success" });
    expect(g.ledger.effects).toHaveLength(0);
    expect(await g.store.getOperation(alice.tenant, id, g.clock.now())).toBeNull();
    expect(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id })).toMatchObject({ outcome: "success" });
  });

  it("a terminal answer is always recorded: a NUL in a declared failure's text is replaced, the answer is replayed, and the handler does not run again", async () => {
    let runs = 0;
    const g = makeGate({
      policy,
      store: await stores.fresh(),
      handlers: () => ({
        get_account: async () => {
          runs++;
          return { ok: false, failure: "account_not_found", message: "ledger said \u0000 and \ud800" };
        },
      }),
    });
    const id = op("op-nul-error");
    const first = await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" }, operation_id: id });
    expect(first).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error" });
    const text = first.outcome === "success" ? "" : first.message;
    expect(text).toContain("ledger said \ufffd and \ufffd");
    expect(await g.store.getOperation(alice.tenant, id, g.clock.now())).toMatchObject({ status: "final", envelope: { reason: "permanent_error", message: text } });
    const again = await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" }, operation_id: id });
    expect(again).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", replayed: true });
    expect(runs).toBe(1);
  });

  it("a terminal answer is always recorded: a thrown permanent error with a NUL in its text is answered without it, recorded and replayed", async () => {
    let runs = 0;
    const g = makeGate({
      policy,
      store: await stores.fresh(),
      handlers: () => ({
        get_account: async () => {
          runs++;
          throw permanent(new Error("ledger said \u0000 and \ud800"));
        },
      }),
    });
    const id = op("op-nul-thrown");
    const first = await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" }, operation_id: id });
    expect(first).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error" });
    expect(JSON.stringify(first)).not.toContain("ledger said");
    expect(await g.store.getOperation(alice.tenant, id, g.clock.now())).toMatchObject({ status: "final", envelope: { reason: "permanent_error" } });
    const again = await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" }, operation_id: id });
    expect(again).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", replayed: true });
    expect(runs).toBe(1);
  });

  it("a trusted context with a control character in an identity is refused before anything is stored, on every store", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    for (const ctx of [{ ...alice, user: "alice\u0000" }, { ...alice, run_id: "run\ud800" }, { ...alice, tenant: "t\u0007" }, { ...alice, roles: ["agent\u0000"] }]) {
      const id = op("op-ctx");
      const e = await g.runtime.call(ctx, { tool: "get_account", args: { account_id: "acc_alice" }, operation_id: id });
      expect(e, JSON.stringify(ctx)).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", message: expect.stringContaining("trusted context") });
      expect(await g.store.getOperation(ctx.tenant, id, g.clock.now())).toBeNull();
    }
  });

  it("no store error text reaches the model: an exception in the gate answers the envelope's own text", async () => {
    const store = await stores.fresh();
    const failing = new Proxy(store, {
      get(target, key, receiver) {
        if (key === "readCallState" || key === "claimFirst") return async () => { throw new Error("internal error: unsupported Unicode escape sequence (SQLSTATE 22P05) at idempotency_records"); };
        const v = Reflect.get(target, key, receiver) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as Store;
    const g = makeGate({ policy, store: failing });
    const e = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: op("op-throw") });
    expect(e).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", message: expect.stringContaining("internal error in the gate") });
    expect(JSON.stringify(e)).not.toMatch(/SQLSTATE|unsupported Unicode|idempotency_records/);
  });
});
