/**
 * Who may use what another principal of the tenant started, on both stores:
 * - an approval is consumed only by the call of the principal (tenant, user, run) that
 *   requested it, unless tools.yaml widens it to the tenant (`approval.binding: tenant`);
 * - an interrupted run's approvals cannot be used by anyone else;
 * - a stored outcome is replayed only to the user whose call recorded it;
 * - a destructive tool never runs, whatever the policy returns and whatever approval is presented;
 * - another tenant's approval id and an id that does not exist get the same answer.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import type { TrustedContext } from "../../src/generated-runtime.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";
import { argsHash, fingerprint } from "../../src/runtime/index.js";
import type { Envelope } from "../../src/runtime/index.js";
import { alice, approved, bob, loadShippedPolicy, makeGate, mallory, reserveArgs, withTool } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const op = (s: string) => `${s}-${randomUUID().slice(0, 8)}`;
/** Another user of alice's tenant, in another run. */
const carol: TrustedContext = { tenant: alice.tenant, user: "carol", roles: ["agent"], run_id: "run_2" };
/** A read-only user of alice's tenant: the shipped policy denies her every write. */
const vera: TrustedContext = { tenant: alice.tenant, user: "vera", roles: ["viewer"], run_id: "run_3" };

const summary = (e: Envelope): string => (e.outcome === "success" ? `success${e.replayed ? " (replayed)" : ""}` : `${e.outcome}:${e.reason}`);

/** A policy that allows every call: the runtime's own rules are all that stands. */
async function loadAllowAllPolicy(): Promise<PolicyEngine> {
  const source = `package open\n\ndecision := {"allow": true, "reason": "open", "requires_approval": false}\n`;
  const result = compilePolicy({ modules: [{ file: "open.rego", source }], entrypoints: ["open/decision"] });
  if (result.wasm === null) throw new Error(result.errors.map(formatDiagnostic).join("\n"));
  return loadOpaWasmEngine({ wasm: result.wasm, entrypoint: "open/decision" });
}

describeEachStore("principal binding", (stores) => {
  let policy: PolicyEngine;
  let open: PolicyEngine;
  beforeAll(async () => {
    [policy, open] = await Promise.all([loadShippedPolicy(), loadAllowAllPolicy()]);
  });

  it("an approval is consumed only by the principal that requested it: another user or run of the tenant gets a terminal failure and no effect", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const id = op("op-bound");
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), id);
    const request = { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id };
    // Same tenant, same arguments, operation id and approval id: another user, and alice in another run.
    for (const who of [carol, { ...alice, run_id: "run_other" }]) {
      const e = await g.runtime.call(who, request);
      expect(e).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: expect.stringContaining("requested by another user or run") });
    }
    expect(g.ledger.effects).toHaveLength(0);
    expect(await g.store.getApproval(approval_id)).toMatchObject({ status: "approved", consumed_by: null });
    const log = await g.store.listDecisions({ tenant: alice.tenant, operation_id: id });
    expect(log.filter((r) => r.reason === "approval_principal_mismatch")).toHaveLength(2);
    // The requester's own call still runs, once.
    expect(await g.runtime.call(alice, request)).toMatchObject({ outcome: "success", replayed: false });
    expect(g.ledger.effects).toHaveLength(1);
  });

  it("a pending approval is reused only within the run that requested it, so each run gets an approval it can use", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const id = op("op-two-runs");
    const request = { tool: "reserve_funds", args: reserveArgs(), operation_id: id };
    const first = await g.runtime.call(alice, request);
    const again = await g.runtime.call(alice, request);
    const otherRun = await g.runtime.call({ ...alice, run_id: op("run") }, request);
    const idOf = (e: Envelope) => (e.outcome === "terminal_failure" ? e.approval_id : undefined);
    expect(idOf(again)).toBe(idOf(first));
    expect(idOf(otherRun)).toMatch(/^apr_/);
    expect(idOf(otherRun)).not.toBe(idOf(first));
  });

  it("another principal's call never holds a claim under a principal-bound approval, so it cannot make a revoke answer already_executed", async () => {
    const store = await stores.fresh();
    const g = makeGate({ policy, store });
    const id = op("op-guard");
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), id);
    const tool = g.runtime.manifest.tools["reserve_funds"]!;
    const claim = (user: string, run_id: string) => ({
      tenant: alice.tenant, operation_id: id, tool: "reserve_funds", fingerprint: "fp", owner: "test", now_ms: g.clock.now(),
      lease_ms: 1_000, retention_ms: tool.retention_ms, guard: { run_id, approval_id, requested_by: user }, interrupt: true,
    });
    expect(await store.claimFirst(claim(carol.user, carol.run_id))).toMatchObject({ claimed: null });
    expect(await store.claimOperation(claim(carol.user, carol.run_id))).toMatchObject({ kind: "refused", why: "approval_invalid" });
    expect(await store.claimOperation(claim(alice.user, carol.run_id))).toMatchObject({ kind: "refused", why: "approval_invalid" });
    expect(await store.getOperation(alice.tenant, id, g.clock.now())).toBeNull();
    expect(await g.runtime.approvals.decide(approval_id, { decision: "revoke" }, bob)).toMatchObject({ ok: true });
    // The requester's own guarded claim is refused now for the revoke, not for the principal.
    expect(await store.claimOperation(claim(alice.user, alice.run_id))).toMatchObject({ kind: "refused", detail: "revoked" });
  });

  it("an interrupted run's approval cannot be used by anyone else", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    // A run of its own: the PostgreSQL schema is shared by the file's tests.
    const stopped = { ...alice, run_id: op("run") };
    const id = op("op-interrupted");
    const approval_id = await approved(g, stopped, "reserve_funds", reserveArgs(), id);
    await g.runtime.interrupt(stopped, "operator stopped the run");
    const e = await g.runtime.call(carol, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id });
    expect(e).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
    expect(await g.runtime.call(stopped, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id })).toMatchObject({ reason: "interrupted" });
    expect(g.ledger.effects).toHaveLength(0);
  });

  it("approval.binding: tenant lets any user of the tenant use the approval, except while the requesting run is interrupted", async () => {
    const tool = withTool("reserve_funds", {}).tools["reserve_funds"]!;
    const manifest = withTool("reserve_funds", { approval: { ...tool.approval!, binding: "tenant" } });
    const g = makeGate({ policy, store: await stores.fresh(), manifest });
    const stoppedRun = { ...alice, run_id: op("run") };
    const stopped = op("op-team-stopped");
    const stoppedApproval = await approved(g, stoppedRun, "reserve_funds", reserveArgs(5), stopped);
    const team = op("op-team");
    const teamApproval = await approved(g, { ...alice, run_id: op("run") }, "reserve_funds", reserveArgs(), team);
    await g.runtime.interrupt(stoppedRun, "operator stopped the run");
    const blocked = await g.runtime.call(carol, { tool: "reserve_funds", args: reserveArgs(5), operation_id: stopped, approval_id: stoppedApproval });
    expect(blocked).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: expect.stringContaining("interrupted run") });
    expect(g.ledger.effects).toHaveLength(0);
    expect(await g.runtime.call(carol, { tool: "reserve_funds", args: reserveArgs(), operation_id: team, approval_id: teamApproval })).toMatchObject({ outcome: "success" });
    expect(g.ledger.effects).toHaveLength(1);
    // Single use still holds for the tenant-wide approval.
    expect(await g.runtime.call({ ...carol, user: "dave" }, { tool: "reserve_funds", args: reserveArgs(), operation_id: op("op-team-2"), approval_id: teamApproval })).toMatchObject({ outcome: "terminal_failure" });
    expect(g.ledger.effects).toHaveLength(1);
  });

  it("a stored outcome is replayed only to the user whose call recorded it: a viewer denied the tool gets no other user's result", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const id = op("op-replay");
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), id);
    const done = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id });
    expect(done).toMatchObject({ outcome: "success", replayed: false });
    // The viewer is policy_denied for reserve_funds; with or without alice's approval id she learns nothing stored.
    for (const [who, extra] of [[vera, {}], [vera, { approval_id }], [carol, {}], [carol, { approval_id }]] as const) {
      const e = await g.runtime.call(who, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, ...extra });
      expect(e.outcome, `${who.user}: ${JSON.stringify(e)}`).toBe("terminal_failure");
      expect(JSON.stringify(e)).not.toContain(done.outcome === "success" ? String(done.resource_id) : "-");
    }
    expect(await g.runtime.call(vera, { tool: "reserve_funds", args: reserveArgs(), operation_id: op("op-vera") })).toMatchObject({ reason: "policy_denied" });
    // alice's own retry still replays.
    expect(summary(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id }))).toBe("success (replayed)");
    expect(g.ledger.effects).toHaveLength(1);
  });

  it("a read's stored outcome is replayed only to the user whose call recorded it", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const id = op("op-read");
    expect(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" }, operation_id: id })).toMatchObject({ outcome: "success" });
    expect(await g.runtime.call(carol, { tool: "get_account", args: { account_id: "acc_alice" }, operation_id: id })).toMatchObject({ outcome: "terminal_failure", reason: "idempotency_conflict" });
    expect(summary(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" }, operation_id: id }))).toBe("success (replayed)");
  });

  it("a destructive tool never executes through the gate, whatever the policy returns and whatever approval is presented", async () => {
    const g = makeGate({ policy: open, store: await stores.fresh() });
    const args = { account_id: "acc_bob" };
    const id = op("op-destroy");
    const plain = await g.runtime.call(alice, { tool: "close_account", args, operation_id: id });
    expect(plain).toMatchObject({ outcome: "terminal_failure", reason: "destructive_denied", operation_id: id });
    // An approval recorded and approved for exactly this call does not help either.
    await g.store.createApproval({
      id: "apr_destroy", tenant: alice.tenant, run_id: alice.run_id, requested_by: alice.user, tool: "close_account", args, preview: args,
      fingerprint: fingerprint(alice.tenant, "close_account", args, ["account_id"]), args_hash: argsHash(alice.tenant, "close_account", args),
      operation_id: id, created_at_ms: g.clock.now(), expires_at_ms: g.clock.now() + 60_000, policy_version: open.version,
      policy_code_version: "", policy_data_version: "",
    });
    expect((await g.runtime.approvals.decide("apr_destroy", { decision: "approve" }, bob)).ok).toBe(true);
    expect(await g.runtime.call(alice, { tool: "close_account", args, operation_id: id, approval_id: "apr_destroy" })).toMatchObject({ reason: "destructive_denied" });
    expect(await g.runtime.preflight(alice, { tool: "close_account", args, operation_id: id })).toMatchObject({ reason: "destructive_denied" });
    expect(g.ledger.accounts.get("acc_bob")?.status).toBe("open");
    expect(await g.store.getOperation(alice.tenant, id, g.clock.now())).toBeNull();
    expect((await g.store.listDecisions({ tenant: alice.tenant, operation_id: id })).map((r) => [r.decision, r.reason])).toContainEqual(["deny", "destructive_denied"]);
  });

  it("another tenant's approval id and an id that does not exist get the same answer at call time", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    const approval_id = await approved(g, alice, "reserve_funds", reserveArgs(), op("op-oracle"));
    const random = `apr_${randomUUID()}`;
    const texts: string[] = [];
    for (const id of [approval_id, random]) {
      const e = await g.runtime.call(mallory, { tool: "reserve_funds", args: reserveArgs(), operation_id: op("op-probe"), approval_id: id });
      if (e.outcome !== "terminal_failure") throw new Error(JSON.stringify(e));
      texts.push(`${e.reason}: ${e.message.replace(id, "<id>")}`);
    }
    expect(texts[0]).toBe(texts[1]);
    const reasons = (await g.store.listDecisions({ tenant: mallory.tenant })).map((r) => r.reason);
    expect(reasons).toEqual(["approval_not_found", "approval_not_found"]);
    expect(g.ledger.effects).toHaveLength(0);
  });
});
