/**
 * One test per runtime guarantee, named after it. The suite takes a policy
 * loader so guarantees.test.ts runs it with the shipped policy compiled to WebAssembly
 * and evaluated by the opa-wasm SDK (the real thing, end to end).
 */
import { createHash } from "node:crypto";
import Ajv2020 from "ajv/dist/2020.js";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/manifest.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import type { ClaimFirstRequest, Store } from "../../src/store/store.js";
import { argsHash, envelopeJsonSchema, fingerprint, isEnvelope } from "../../src/runtime/index.js";
import { versionsOf } from "../../src/policy/version.js";
import type { Envelope } from "../../src/runtime/index.js";
import { lostResponse, partialSuccess, silentFailure, slowSuccess, staleSuccess } from "../../src/testing/index.js";
import { alice, approved, bob, makeGate, mallory, reserveArgs, until, withTool } from "./harness.js";
import type { Gate, GateOptions } from "./harness.js";
import { describeOnceGuarantees } from "./once-guarantees.js";
import { describeEachStore } from "../helpers/stores.js";

export type PolicyLoader = (data?: JsonObject) => Promise<PolicyEngine>;

const ajv = new Ajv2020.default({ strict: false });
const matchesSchema = ajv.compile(envelopeJsonSchema);

/** Every answer in this suite passes through here: the guard and the JSON Schema must agree it is an envelope. */
function env(e: Envelope): Envelope {
  expect(isEnvelope(e)).toBe(true);
  expect(matchesSchema(e), JSON.stringify(matchesSchema.errors)).toBe(true);
  return e;
}

const policyVersions = (p: PolicyEngine) => {
  const v = versionsOf(p);
  return { policy_code_version: v.code_version, policy_data_version: v.data_version };
};

const terminalReason = (e: Envelope): string | null => (e.outcome === "terminal_failure" ? e.reason : null);

/** Runs every guarantee on both stores (each test gets an empty store; gates in one test share it unless told otherwise). */
export function describeGuarantees(name: string, loadPolicy: PolicyLoader): void {
  describeEachStore(`runtime guarantees (${name})`, (stores) => {
    let policy: PolicyEngine;
    let store: Store;
    beforeAll(async () => {
      policy = await loadPolicy();
    });
    beforeEach(async () => {
      store = await stores.fresh();
    });
    const gate = (over: Partial<GateOptions> = {}): Gate => makeGate({ policy, store, ...over });

    describe("prepare", () => {
      it("an unknown tool answers unknown_tool and runs nothing", async () => {
        const g = gate();
        const e = env(await g.runtime.call(alice, { tool: "drop_database", args: {} }));
        expect(terminalReason(e)).toBe("unknown_tool");
        expect(g.ledger.effects).toHaveLength(0);
      });

      it("schema-invalid arguments answer invalid_arguments with a compact list of problems", async () => {
        const g = gate();
        const e = env(await g.runtime.call(alice, { tool: "reserve_funds", args: { account_id: "ACC!", amount: 0, currency: "EUR", recipient: "acc_bob", tenant: "t_other" }, operation_id: "op1" }));
        expect(e).toMatchObject({ outcome: "terminal_failure", reason: "invalid_arguments" });
        const problems = e.outcome === "terminal_failure" ? (e.problems ?? []) : [];
        expect(problems).toEqual(expect.arrayContaining(["/: must NOT have additional properties (tenant)", "/account_id: must match pattern \"^acc_[a-z0-9]+$\"", "/amount: must be >= 1"]));
      });

      it("a write without an operation_id is rejected as invalid_arguments; a read needs none", async () => {
        const g = gate();
        expect(env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs() }))).toMatchObject({ reason: "invalid_arguments", problems: [expect.stringContaining("operation_id")] });
        expect(env(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } }))).toMatchObject({ outcome: "success", operation_id: null });
      });

      it("the fingerprint is SHA-256 of the RFC 8785 JSON of tenant, tool and the declared fields only", () => {
        const fields = ["account_id", "amount", "currency", "recipient"];
        const a = fingerprint("t1", "reserve_funds", { amount: 10, account_id: "acc_a", currency: "EUR", recipient: "acc_b", memo: "x" }, fields);
        const b = fingerprint("t1", "reserve_funds", { recipient: "acc_b", currency: "EUR", account_id: "acc_a", amount: 10, memo: "other memo" }, fields);
        expect(a).toBe(b);
        expect(a).toMatch(/^[0-9a-f]{64}$/);
        expect(fingerprint("t2", "reserve_funds", { amount: 10, account_id: "acc_a", currency: "EUR", recipient: "acc_b" }, fields)).not.toBe(a);
        expect(fingerprint("t1", "reserve_funds", { amount: 1000, account_id: "acc_a", currency: "EUR", recipient: "acc_b" }, fields)).not.toBe(a);
        // RFC 8785: keys sorted, no whitespace; written out by hand so the test does not trust the library.
        const canonical = '{"args":{"account_id":"acc_a","amount":10,"currency":"EUR","recipient":"acc_b"},"tenant":"t1","tool":"reserve_funds"}';
        expect(a).toBe(createHash("sha256").update(canonical).digest("hex"));
      });

      it("the same operation_id with the same fingerprint replays the recorded envelope without calling the handler", async () => {
        const g = gate();
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-replay");
        const first = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-replay", approval_id }));
        const again = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000, { memo: "memo is not part of the intent" }), operation_id: "op-replay" }));
        expect(first).toMatchObject({ outcome: "success", replayed: false });
        expect(again).toEqual({ ...first, replayed: true });
        expect(g.ledger.effectsOf("op-replay")).toHaveLength(1);
      });

      it("the same operation_id with another fingerprint answers idempotency_conflict", async () => {
        const g = gate();
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-c");
        env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-c", approval_id }));
        const e = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(2_000), operation_id: "op-c", approval_id }));
        expect(terminalReason(e)).toBe("idempotency_conflict");
        expect(g.ledger.effects).toHaveLength(1);
      });
    });

    describe("authorize", () => {
      it("a read is allowed by the policy", async () => {
        const g = gate();
        const e = env(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } }));
        expect(e).toMatchObject({ outcome: "success", value: { account_id: "acc_alice", balance: 500_000 } });
        expect((await g.store.listDecisions())[0]).toMatchObject({ decision: "allow", reason: "read_allowed", policy_version: policy.version });
      });

      it("a write without approval creates a durable pending approval with the exact preview and answers approval_required", async () => {
        const g = gate();
        const e = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000, { memo: "rent" }), operation_id: "op-a" }));
        expect(e).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
        const id = e.outcome === "terminal_failure" ? e.approval_id : undefined;
        const record = await g.store.getApproval(id ?? "");
        expect(record).toMatchObject({
          tenant: "t_acme", tool: "reserve_funds", status: "pending", policy_version: policy.version,
          preview: { account_id: "acc_alice", amount: 1_000, currency: "EUR", recipient: "acc_bob" },
          fingerprint: fingerprint("t_acme", "reserve_funds", reserveArgs(), ["account_id", "amount", "currency", "recipient"]),
          expires_at_ms: g.clock.now() + 15 * 60_000,
        });
        expect(g.ledger.effects).toHaveLength(0);
        // Asking again with identical arguments does not pile up approvals.
        const again = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000, { memo: "rent" }), operation_id: "op-a" }));
        expect(again).toMatchObject({ approval_id: id });
      });

      it("a policy deny answers policy_denied with the policy's reason (data-driven limit and role)", async () => {
        const g = gate();
        const big = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000_001), operation_id: "op-big" }));
        expect(big).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("limit_exceeded") });
        const viewer = { ...alice, roles: ["viewer"] };
        const w = env(await g.runtime.call(viewer, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-v" }));
        expect(w).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("role_not_permitted") });
        expect(env(await g.runtime.call(viewer, { tool: "get_account", args: { account_id: "acc_alice" } })).outcome).toBe("success");
      });

      it("a policy evaluation error fails closed", async () => {
        const broken: PolicyEngine = { version: policy.version, evaluate: async () => { throw new Error("wasm trap"); } };
        const g = gate({ policy: broken });
        const e = env(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } }));
        expect(e).toMatchObject({ outcome: "terminal_failure", reason: "policy_evaluation_error" });
      });

      it("the run's interrupt flag is re-read before the policy is asked", async () => {
        const g = gate();
        await g.runtime.interrupt(alice, "user pressed stop");
        const e = env(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } }));
        expect(e).toMatchObject({ reason: "interrupted", message: expect.stringContaining("user pressed stop") });
        await g.runtime.resume(alice);
        expect(env(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } })).outcome).toBe("success");
      });
    });

    describe("approvals", () => {
      it("an approval authorizes the call with the same tenant and fingerprint, once", async () => {
        const g = gate();
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-ok");
        const e = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-ok", approval_id }));
        expect(e).toMatchObject({ outcome: "success", resource_id: expect.stringMatching(/^res_/), operation_id: "op-ok" });
        expect(g.ledger.effects).toHaveLength(1);
      });

      it("an approval covers one operation: the same arguments under another operation_id need their own approval", async () => {
        const g = gate();
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-one");
        env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-one", approval_id }));
        const e = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-two", approval_id }));
        expect(e).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("approval_operation_mismatch") });
        expect(g.ledger.effects).toHaveLength(1);
      });

      it("an approval for one fingerprint never authorizes another (10 -> 1000, another recipient)", async () => {
        const g = gate();
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(10), "op-10");
        for (const args of [reserveArgs(1_000), reserveArgs(10, { recipient: "acc_mallory" })]) {
          const e = env(await g.runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-10", approval_id }));
          expect(e).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("approval_fingerprint_mismatch") });
        }
        expect(g.ledger.effects).toHaveLength(0);
      });

      it("an approval never authorizes another tenant", async () => {
        const g = gate();
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-t");
        const e = env(await g.runtime.call(mallory, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-t", approval_id }));
        // Answered as an id that does not exist: the answer does not tell that it exists elsewhere.
        expect(e).toMatchObject({ reason: "policy_denied", message: `approval ${approval_id} does not exist in tenant ${mallory.tenant}` });
        expect(g.ledger.effects).toHaveLength(0);
      });

      it("an approval never authorizes a call after its expiry", async () => {
        const g = gate();
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-x");
        g.clock.advance(15 * 60_000);
        const e = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-x", approval_id }));
        expect(e).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("approval_expired") });
        expect(g.ledger.effects).toHaveLength(0);
      });

      it("an approval given under another policy code version does not authorize", async () => {
        const g = gate();
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-pv");
        // Another policy code (a data-only change does not void approvals: test/binding/policy-versions.test.ts).
        const newer: PolicyEngine = { ...versionsOf(policy), version: "sha256:other", code_version: "sha256:other-code", evaluate: (i) => policy.evaluate(i) };
        const g2 = gate({ policy: newer, store: g.store, ledger: g.ledger, clock: g.clock });
        const e = env(await g2.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-pv", approval_id }));
        expect(e).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("approval_policy_changed") });
        expect(g.ledger.effects).toHaveLength(0);
      });

      it("reject gives the model a terminal reason", async () => {
        const g = gate();
        const first = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-r" }));
        const approval_id = first.outcome === "terminal_failure" ? (first.approval_id ?? "") : "";
        expect(await g.runtime.approvals.decide(approval_id, { decision: "reject", reason: "wrong recipient" }, bob)).toMatchObject({ ok: true });
        const e = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-r", approval_id }));
        expect(e).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: expect.stringContaining("approval_rejected") });
        expect(g.ledger.effects).toHaveLength(0);
      });

      it("edit makes a new call with the edited arguments and its own fingerprint", async () => {
        const g = gate();
        const first = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-e" }));
        const approval_id = first.outcome === "terminal_failure" ? (first.approval_id ?? "") : "";
        const edited = reserveArgs(500);
        const d = await g.runtime.approvals.decide(approval_id, { decision: "edit", edited_args: edited, reason: "half is enough" }, bob);
        expect(d.ok).toBe(true);
        if (!d.ok || d.edited === undefined) return;
        expect(d.edited.approval.fingerprint).not.toBe((await g.store.getApproval(approval_id))?.fingerprint);
        // The original call is not authorized by the edit.
        const orig = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-e", approval_id }));
        expect(orig).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("approval_edited") });
        const e = env(await g.runtime.call(alice, { tool: "reserve_funds", args: d.edited.args, operation_id: d.edited.operation_id, approval_id: d.edited.approval.id }));
        expect(e).toMatchObject({ outcome: "success", observed_state: { amount: 500 } });
        expect(g.ledger.effects).toHaveLength(1);
      });

      it("destructive tools stay denied even when approved", async () => {
        const g = gate();
        const first = env(await g.runtime.call(alice, { tool: "close_account", args: { account_id: "acc_bob" }, operation_id: "op-d" }));
        expect(first).toMatchObject({ outcome: "terminal_failure", reason: "destructive_denied" });
        // Even an approval record made and approved for exactly this call does not help.
        await g.store.createApproval({
          id: "apr_forced", tenant: alice.tenant, run_id: alice.run_id, requested_by: "alice", tool: "close_account",
          args: { account_id: "acc_bob" }, preview: { account_id: "acc_bob" },
          fingerprint: fingerprint(alice.tenant, "close_account", { account_id: "acc_bob" }, ["account_id"]),
          args_hash: argsHash(alice.tenant, "close_account", { account_id: "acc_bob" }),
          operation_id: "op-d", created_at_ms: g.clock.now(), expires_at_ms: g.clock.now() + 60_000, policy_version: policy.version,
          ...policyVersions(policy),
        });
        expect((await g.runtime.approvals.decide("apr_forced", { decision: "approve" }, bob)).ok).toBe(true);
        const e = env(await g.runtime.call(alice, { tool: "close_account", args: { account_id: "acc_bob" }, operation_id: "op-d", approval_id: "apr_forced" }));
        expect(e).toMatchObject({ outcome: "terminal_failure", reason: "destructive_denied" });
        expect(g.ledger.accounts.get("acc_bob")?.status).toBe("open");
      });

      it("a decision is recorded as an event with approver, time, expiry, scope and policy version", async () => {
        const g = gate();
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-ev", "carol");
        const record = await g.runtime.approvals.get(approval_id);
        expect(record).toMatchObject({ status: "approved", tenant: "t_acme", run_id: "run_1", tool: "reserve_funds", operation_id: "op-ev" });
        expect(await g.runtime.approvals.events(approval_id)).toEqual([
          { approval_id, decision: "approve", approver: "carol", approver_roles: ["approver"], reason: null, edited_args: null, decided_at_ms: g.clock.now(), policy_version: policy.version, ...policyVersions(policy) },
        ]);
        expect(await g.runtime.approvals.decide(approval_id, { decision: "reject" }, { ...bob, user: "mallory" })).toMatchObject({ ok: false, why: "already_decided" });
      });
    });

    describe("invoke", () => {
      it("the interrupt flag is checked again right before the effect", async () => {
        const interrupting: PolicyEngine = {
          ...versionsOf(policy),
          async evaluate(input) {
            await store.setInterrupt({ tenant: alice.tenant, run_id: alice.run_id, reason: "stop during policy", at_ms: 0 });
            return policy.evaluate(input);
          },
        };
        const g = gate({ policy: interrupting, store });
        const e = env(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } }));
        expect(e).toMatchObject({ reason: "interrupted", message: expect.stringContaining("before the effect") });
      });

      it("the claim is the last check of a revoke: revoked before claim-first, the call stops with no record; revoked after it (while the policy runs), the call goes ahead as after any claim", async () => {
        const revoke = (approval_id: string) =>
          store.decideApproval({ approval_id, decision: "revoke", approver: "carol", approver_roles: [], reason: "customer called", edited_args: null, decided_at_ms: 0, policy_version: policy.version, ...policyVersions(policy) });
        let beforeClaim: string | null = null;
        let duringPolicy: string | null = null;
        const revoking: PolicyEngine = {
          ...versionsOf(policy),
          async evaluate(input) {
            const d = await policy.evaluate(input);
            if (duringPolicy !== null) await revoke(duringPolicy);
            return d;
          },
        };
        const watched = new Proxy(store, {
          get(target, key) {
            if (key === "claimFirst") return async (req: ClaimFirstRequest) => (beforeClaim === null ? undefined : await revoke(beforeClaim), target.claimFirst(req));
            const v: unknown = Reflect.get(target, key, target);
            return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          },
        });
        const g = gate({ policy: revoking, store: watched });
        beforeClaim = await approved(g, alice, "reserve_funds", reserveArgs(), "op-rv");
        const e = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-rv", approval_id: beforeClaim }));
        expect(e).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("approval_revoked") });
        expect(g.ledger.effects).toHaveLength(0);
        expect(await store.getOperation(alice.tenant, "op-rv", g.clock.now())).toBeNull();
        beforeClaim = null;
        duringPolicy = await approved(g, alice, "reserve_funds", reserveArgs(), "op-rv-late");
        const late = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-rv-late", approval_id: duringPolicy }));
        expect(late).toMatchObject({ outcome: "success" });
        expect(g.ledger.effectsOf("op-rv-late")).toHaveLength(1);
      });

      it("a caller that finds the operation running elsewhere waits (bounded), then gets retryable_failure with retry_after_ms", async () => {
        const a = gate({ handlers: (base) => ({ reserve_funds: slowSuccess(base.reserve_funds, 500) }) });
        const b = gate({ store: a.store, ledger: a.ledger, clock: a.clock, inProgressWaitMs: 50 });
        const approval_id = await approved(a, alice, "reserve_funds", reserveArgs(), "op-busy");
        const first = a.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-busy", approval_id });
        await until(() => a.ledger.effectsOf("op-busy").length === 1);
        const waiting = env(await b.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-busy", approval_id }));
        expect(waiting).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error", retry_after_ms: expect.any(Number) });
        expect(waiting.outcome === "retryable_failure" && waiting.retry_after_ms > 0).toBe(true);
        const done = env(await first);
        expect(env(await b.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-busy", approval_id }))).toEqual({ ...done, replayed: true });
        expect(a.ledger.effectsOf("op-busy")).toHaveLength(1);
      });

      it("the handler receives the operation_id and fence token", async () => {
        const seen: { operation_id: string | null; fence_token: number | null }[] = [];
        const g = gate({ handlers: (base) => ({ reserve_funds: async (a, ctx) => (seen.push({ operation_id: ctx.operation_id, fence_token: ctx.fence_token }), base.reserve_funds(a, ctx)) }) });
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-f");
        env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-f", approval_id }));
        expect(seen).toEqual([{ operation_id: "op-f", fence_token: 1 }]);
      });

      it("a handler that finishes after an interrupt arrived has its result recorded once and returned on replay", async () => {
        let release!: () => void;
        const gateOpen = new Promise<void>((r) => (release = r));
        let sawAbort = false;
        const g = gate({
          handlers: (base) => ({
            reserve_funds: async (a, ctx) => {
              const r = await base.reserve_funds(a, ctx);
              await gateOpen;
              sawAbort = ctx.signal.aborted;
              return r;
            },
          }),
        });
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-int");
        const pending = g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-int", approval_id });
        await until(() => g.ledger.effectsOf("op-int").length === 1);
        await g.runtime.interrupt(alice, "stop");
        release();
        const e = env(await pending);
        expect(sawAbort).toBe(true);
        expect(e).toMatchObject({ outcome: "success", replayed: false });
        await g.runtime.resume(alice);
        const replayed = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-int", approval_id }));
        expect(replayed).toEqual({ ...e, replayed: true });
        expect(g.ledger.effects).toHaveLength(1);
      });

      it("typed failures from tools.yaml map to retryable and terminal envelopes", async () => {
        const g = gate({
          handlers: () => ({
            get_account: async ({ account_id }) =>
              account_id === "acc_down" ? { ok: false, failure: "ledger_unavailable" } : account_id === "acc_odd" ? ({ ok: false, failure: "cosmic_rays" } as never) : { ok: false, failure: "account_not_found" },
          }),
        });
        expect(env(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_down" } }))).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error", retry_after_ms: 2000 });
        expect(env(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_gone" } }))).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", failure: "account_not_found" });
        expect(env(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_odd" } }))).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", message: expect.stringContaining("undeclared") });
      });

      it("retries are bounded by the tool's retry budget: retry_exhausted", async () => {
        let calls = 0;
        const g = gate({
          manifest: withTool("reserve_funds", { retry: { max_attempts: 2, backoff: { initial_ms: 10, multiplier: 2, max_ms: 100 } } }),
          handlers: () => ({ reserve_funds: async () => (calls++, { ok: false, failure: "ledger_unavailable" }) }),
        });
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-b");
        const call = () => g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-b", approval_id });
        expect(env(await call())).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error", retry_after_ms: 2000 });
        expect(env(await call())).toMatchObject({ outcome: "terminal_failure", reason: "retry_exhausted" });
        expect(env(await call())).toMatchObject({ outcome: "terminal_failure", reason: "retry_exhausted", replayed: true });
        expect(calls).toBe(2);
      });

      it("a timeout on a write records outcome unknown; the retry with the same operation_id reconciles without a second effect", async () => {
        const g = gate({
          manifest: withTool("reserve_funds", { timeout_ms: 50 }),
          handlers: (base) => ({ reserve_funds: lostResponse(base.reserve_funds) }),
        });
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-to");
        const first = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-to", approval_id }));
        expect(first).toMatchObject({ outcome: "retryable_failure", reason: "timeout", operation_id: "op-to" });
        expect(await g.store.getOperation(alice.tenant, "op-to", g.clock.now())).toMatchObject({ status: "unknown" });
        const retry = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-to", approval_id }));
        expect(retry).toMatchObject({ outcome: "success", resource_id: g.ledger.effects[0]?.resource_id });
        expect(g.ledger.effectsOf("op-to")).toHaveLength(1);
        expect(await g.store.getOperation(alice.tenant, "op-to", g.clock.now())).toMatchObject({ status: "final", fence_token: 2 });
      });

      it("an outcome-unknown operation is reconciled even after its approval expired: reading the observed state is no new effect", async () => {
        const g = gate({
          manifest: withTool("reserve_funds", { timeout_ms: 50 }),
          handlers: (base) => ({ reserve_funds: lostResponse(base.reserve_funds) }),
        });
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-late");
        env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-late", approval_id }));
        g.clock.advance(16 * 60_000);
        const retry = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-late", approval_id }));
        expect(retry).toMatchObject({ outcome: "success", resource_id: g.ledger.effectsOf("op-late")[0]?.resource_id });
        expect(g.ledger.effectsOf("op-late")).toHaveLength(1);
        expect((await g.store.listDecisions({ operation_id: "op-late" }))[0]).toMatchObject({ decision: "not_evaluated", reason: "reconcile_first", outcome: "success" });
      });

      it("when the reconciler finds nothing, invoking again needs the policy at that moment", async () => {
        let hang = true;
        const g = gate({
          manifest: withTool("reserve_funds", { timeout_ms: 50, retry: { max_attempts: 3, backoff: { initial_ms: 10, multiplier: 2, max_ms: 100 } } }),
          handlers: (base) => ({ reserve_funds: async (a, ctx) => (hang ? new Promise<never>(() => undefined) : base.reserve_funds(a, ctx)) }),
        });
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-na");
        expect(env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-na", approval_id }))).toMatchObject({ reason: "timeout" });
        hang = false;
        g.clock.advance(16 * 60_000);
        const denied = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-na", approval_id }));
        expect(denied).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("approval_expired") });
        expect(g.ledger.effects).toHaveLength(0);
      });

      it("a write whose outcome is unknown and which has no reconciler is never invoked twice", async () => {
        const g = gate({
          manifest: withTool("reserve_funds", { timeout_ms: 50 }),
          handlers: (base) => ({ reserve_funds: lostResponse(base.reserve_funds) }),
          reconcilers: () => ({}),
        });
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-nr");
        env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-nr", approval_id }));
        const retry = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-nr", approval_id }));
        expect(retry).toMatchObject({ outcome: "terminal_failure", reason: "timeout", message: expect.stringContaining("no reconcile handler") });
        expect(g.ledger.effectsOf("op-nr")).toHaveLength(1);
      });
    });

    describe("adversarial responses", () => {
      it("slow success within the timeout is success; past it the outcome is unknown (and recorded once when it lands)", async () => {
        const g = gate({
          manifest: withTool("reserve_funds", { timeout_ms: 1_000 }),
          handlers: (base) => ({ reserve_funds: async (a, ctx) => slowSuccess(base.reserve_funds, a.amount === 1_000 ? 20 : 1_300)(a, ctx) }),
        });
        const a1 = await approved(g, alice, "reserve_funds", reserveArgs(1_000), "op-s1");
        expect(env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: "op-s1", approval_id: a1 }))).toMatchObject({ outcome: "success" });
        const a2 = await approved(g, alice, "reserve_funds", reserveArgs(2_000), "op-s2");
        const late = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(2_000), operation_id: "op-s2", approval_id: a2 }));
        expect(late).toMatchObject({ outcome: "retryable_failure", reason: "timeout" });
        await until(async () => (await g.store.getOperation(alice.tenant, "op-s2", g.clock.now()))?.status === "final");
        const after = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(2_000), operation_id: "op-s2", approval_id: a2 }));
        expect(after).toMatchObject({ outcome: "success", replayed: true });
        expect(g.ledger.effectsOf("op-s2")).toHaveLength(1);
      });

      it("partial success is never plain success", async () => {
        const g = gate({ handlers: (base) => ({ send_notification: partialSuccess(base.send_notification, () => [{ channel: "sms", error: "carrier rejected" }]) }) });
        const approval_id = await approved(g, alice, "send_notification", { account_id: "acc_bob", channel: "sms", message: "hi" }, "op-p");
        const e = env(await g.runtime.call(alice, { tool: "send_notification", args: { account_id: "acc_bob", channel: "sms", message: "hi" }, operation_id: "op-p", approval_id }));
        expect(e).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", message: expect.stringContaining("partial success"), observed_state: { failed_items: [{ error: "carrier rejected" }] } });
      });

      it("silent failure (success without the effect) is caught by the postcondition", async () => {
        const g = gate({ handlers: () => ({ reserve_funds: silentFailure(() => ({ reservation_id: "res_fake", state: "reserved" as const })) }) });
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-sf");
        const e = env(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-sf", approval_id }));
        expect(e).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", message: expect.stringContaining("silent failure") });
        expect(g.ledger.effects).toHaveLength(0);
      });

      it("stale success (an old version of the resource) is caught by the observed-state check", async () => {
        const g = gate({
          handlers: (base, ledger) => ({
            freeze_account: staleSuccess(base.freeze_account, async ({ account_id }) => ({ status: ledger.accounts.get(account_id)?.status ?? "unknown" })),
          }),
        });
        const args = { account_id: "acc_bob", reason: "fraud check" };
        const approval_id = await approved(g, alice, "freeze_account", args, "op-st");
        const e = env(await g.runtime.call(alice, { tool: "freeze_account", args, operation_id: "op-st", approval_id }));
        expect(e).toMatchObject({ outcome: "terminal_failure", reason: "permanent_error", message: expect.stringContaining("observed state contradicts"), observed_state: { status: "open" } });
      });
    });

    describe("store and log", () => {
      it("the decision log records every call: tool, fingerprint, decision, reason, policy version, outcome", async () => {
        const g = gate();
        await g.runtime.call(alice, { tool: "nope", args: {} });
        await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-l" });
        const log = await g.store.listDecisions({ tenant: alice.tenant });
        expect(log).toHaveLength(2);
        expect(log[0]).toMatchObject({
          tool: "reserve_funds", operation_id: "op-l", decision: "approval_required", reason: "approval_required",
          policy_version: policy.version, outcome: "terminal_failure", outcome_reason: "approval_required", user: "alice", run_id: "run_1",
          fingerprint: fingerprint(alice.tenant, "reserve_funds", reserveArgs(), ["account_id", "amount", "currency", "recipient"]),
        });
        expect(log[1]).toMatchObject({ tool: "nope", decision: "not_evaluated", outcome_reason: "unknown_tool", fingerprint: null });
      });

      it("idempotency records expire after the tool's retention", async () => {
        const g = gate();
        const args = { account_id: "acc_bob", channel: "email", message: "hello" };
        const a1 = await approved(g, alice, "send_notification", args, "op-ret");
        env(await g.runtime.call(alice, { tool: "send_notification", args, operation_id: "op-ret", approval_id: a1 }));
        g.clock.advance(60 * 60_000 - 1);
        expect(env(await g.runtime.call(alice, { tool: "send_notification", args, operation_id: "op-ret" }))).toMatchObject({ replayed: true });
        g.clock.advance(1);
        expect(await g.store.getOperation(alice.tenant, "op-ret", g.clock.now())).toBeNull();
        // Past retention the id is free again: a new call needs its own approval.
        expect(env(await g.runtime.call(alice, { tool: "send_notification", args, operation_id: "op-ret" }))).toMatchObject({ reason: "approval_required" });
      });
    });

    describe("concurrency", () => {
      it("a takeover after lease expiry fences out the old holder: its late outcome is not recorded over the new one", async () => {
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        const a = gate({ handlers: (base) => ({ reserve_funds: async (args, ctx) => { const r = await base.reserve_funds(args, ctx); await held; return r; } }) });
        const b = gate({ store: a.store, ledger: a.ledger, clock: a.clock });
        const approval_id = await approved(a, alice, "reserve_funds", reserveArgs(), "op-fence");
        const slow = a.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-fence", approval_id });
        await until(() => a.ledger.effectsOf("op-fence").length === 1);
        a.clock.advance(5_000 + 1_000); // the tool's timeout plus the lease margin: A's lease has expired
        const taken = env(await b.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-fence", approval_id }));
        expect(taken).toMatchObject({ outcome: "success", replayed: false });
        release();
        const late = env(await slow);
        expect(late).toEqual({ ...taken, replayed: true });
        expect(await a.store.getOperation(alice.tenant, "op-fence", a.clock.now())).toMatchObject({ status: "final", fence_token: 2 });
        expect(a.ledger.effectsOf("op-fence").map((e) => e.fence_token)).toEqual([1]);
      });

      it("race: many concurrent calls with one operation id give one effect, one recorded outcome and the same answer to every caller", async () => {
        const g = gate({ handlers: (base) => ({ reserve_funds: slowSuccess(base.reserve_funds, 30) }) });
        const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), "op-race");
        const answers = await Promise.all(
          Array.from({ length: 40 }, () => g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-race", approval_id })),
        );
        answers.forEach(env);
        expect(g.ledger.effectsOf("op-race")).toHaveLength(1);
        const strip = (e: Envelope) => ({ ...e, replayed: undefined });
        expect(new Set(answers.map((a) => JSON.stringify(strip(a)))).size).toBe(1);
        expect(answers.filter((a) => a.outcome === "success" && !a.replayed)).toHaveLength(1);
        const rec = await g.store.getOperation(alice.tenant, "op-race", g.clock.now());
        expect(rec).toMatchObject({ status: "final", fence_token: 1, attempts: 1 });
      });
    });

    describeOnceGuarantees(gate);
  });
}
