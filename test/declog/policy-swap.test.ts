/**
 * Shadow mode and hot reload: a shadow policy is evaluated on every call and its
 * disagreements are logged but never enforced; setPolicy swaps atomically (a call
 * keeps the policy it started with, from authorize to commit); watchPolicy swaps
 * only after the new file loaded and keeps the old one on failure.
 */
import { versionsOf } from "../../src/policy/version.js";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bundleBytes } from "../../codegen/compiler/bundle.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { isPolicySwapError } from "../../src/runtime/index.js";
import type { ReloadResult } from "../../src/runtime/index.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import { until } from "../runtime/harness.js";
import { alice, bob, approvedWrite, changedData, ENTRYPOINT, gate, loadGeneratedPolicy, POLICY_WASM, reserve, shippedData, victor } from "./harness.js";

const readOnlyViewersRemoved = () => changedData((c) => void ((c["roles"] as Record<string, unknown>)["viewer"] = { effects: [] }));

/** v1 itself (same versions), which swaps the runtime's policy right after answering. */
// Versions are copied by name: an engine may define them as getters, which a spread drops.
const swapAfterEvaluating = (v1: PolicyEngine, swap: () => void): PolicyEngine => ({
  version: v1.version,
  ...(v1.code_version === undefined ? {} : { code_version: v1.code_version }),
  ...(v1.data_version === undefined ? {} : { data_version: v1.data_version }),
  async evaluate(input) {
    const d = await v1.evaluate(input);
    swap();
    return d;
  },
});

let store: Store;
afterEach(async () => {
  await store.close();
});

describe("shadow policy", () => {
  it("is evaluated on every call, logged with its version and whether it disagrees, and never enforced", async () => {
    store = openSqliteStore(":memory:");
    const enforced = await loadGeneratedPolicy();
    const candidate = await loadGeneratedPolicy(readOnlyViewersRemoved());
    const g = gate(store, enforced, { shadowPolicy: candidate });
    expect(g.runtime.shadowPolicyVersion).toBe(candidate.version);
    const viewerRead = await g.runtime.call(victor, { tool: "get_account", args: { account_id: "acc_alice" } });
    const agentRead = await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    expect(viewerRead.outcome).toBe("success"); // the candidate would deny it: not enforced
    expect(agentRead.outcome).toBe("success");
    const [agent, viewer] = await store.listDecisions();
    expect(viewer).toMatchObject({
      decision: "allow",
      reason: "read_allowed",
      policy_version: enforced.version,
      shadow: { policy_version: candidate.version, decision: "deny", reason: "role_not_permitted", disagrees: true },
    });
    expect(viewer!.shadow!.eval_ns).toBeGreaterThan(0);
    expect(agent).toMatchObject({ decision: "allow", shadow: { decision: "allow", reason: "read_allowed", disagrees: false } });
    expect((await store.listDecisions({ shadow_disagrees: true })).map((d) => d.user)).toEqual(["victor"]);
  });

  it("a shadow policy that throws changes nothing for the caller and is logged as a fail-closed deny", async () => {
    store = openSqliteStore(":memory:");
    const broken: PolicyEngine = { version: "broken-1", evaluate: async () => { throw new Error("trap"); } };
    const g = gate(store, await loadGeneratedPolicy(), { shadowPolicy: broken });
    expect((await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } })).outcome).toBe("success");
    expect((await store.listDecisions())[0]).toMatchObject({ decision: "allow", shadow: { decision: "deny", reason: "policy_evaluation_error", disagrees: true } });
  });

  it("setShadowPolicy adds and removes the candidate; a non-engine is refused with a typed error", async () => {
    store = openSqliteStore(":memory:");
    const g = gate(store, await loadGeneratedPolicy());
    expect(g.runtime.shadowPolicyVersion).toBeNull();
    g.runtime.setShadowPolicy(await loadGeneratedPolicy(readOnlyViewersRemoved()));
    await g.runtime.call(victor, { tool: "get_account", args: { account_id: "acc_alice" } });
    g.runtime.setShadowPolicy(null);
    await g.runtime.call(victor, { tool: "get_account", args: { account_id: "acc_alice" } });
    const [after, before] = await store.listDecisions();
    expect(before!.shadow?.disagrees).toBe(true);
    expect(after!.shadow).toBeNull();
    const err = (() => {
      try {
        g.runtime.setShadowPolicy({ version: "" } as unknown as PolicyEngine);
      } catch (e) {
        return e;
      }
    })();
    expect(isPolicySwapError(err)).toBe(true);
  });
});

describe("setPolicy", () => {
  it("new calls use the new policy and every decision records the version it was made under", async () => {
    store = openSqliteStore(":memory:");
    const v1 = await loadGeneratedPolicy();
    const v2 = await loadGeneratedPolicy(readOnlyViewersRemoved());
    const g = gate(store, v1);
    expect((await g.runtime.call(victor, { tool: "get_account", args: { account_id: "acc_alice" } })).outcome).toBe("success");
    g.runtime.setPolicy(v2);
    expect(g.runtime.policyVersion).toBe(v2.version);
    expect(await g.runtime.call(victor, { tool: "get_account", args: { account_id: "acc_alice" } })).toMatchObject({ reason: "policy_denied" });
    expect((await store.listDecisions()).map((d) => [d.policy_version, d.reason])).toEqual([
      [v2.version, "role_not_permitted"],
      [v1.version, "read_allowed"],
    ]);
  });

  it("a call keeps the policy it started with from authorize to commit, even when swapped while it runs", async () => {
    store = openSqliteStore(":memory:");
    const v1 = await loadGeneratedPolicy();
    const v2 = await loadGeneratedPolicy(changedData((c) => void ((c["limits"] as Record<string, unknown>)["reserve_funds"] = { amount: { max: 10 } })));
    const g = gate(store, v1);
    // Swapped between the policy's answer and the commit: the approval was given under v1 and the call commits under v1.
    const ask = await g.runtime.call(alice, { tool: "reserve_funds", args: reserve(500), operation_id: "op-swap" });
    const approvalId = ask.outcome === "terminal_failure" ? ask.approval_id! : "";
    expect((await g.runtime.approvals.decide(approvalId, { decision: "approve" }, bob)).ok).toBe(true);
    const swapping = swapAfterEvaluating(v1, () => g.runtime.setPolicy(v2));
    g.runtime.setPolicy(swapping);
    const done = await g.runtime.call(alice, { tool: "reserve_funds", args: reserve(500), operation_id: "op-swap", approval_id: approvalId });
    expect(done).toMatchObject({ outcome: "success" });
    expect(g.ledger.reservationByOperation("op-swap")).toBeDefined();
    expect((await store.listDecisions({ operation_id: "op-swap" }))[0]).toMatchObject({ decision: "allow", reason: "approved", policy_version: v1.version });
    // The next call is decided by v2.
    expect(await g.runtime.call(alice, { tool: "reserve_funds", args: reserve(500), operation_id: "op-next" })).toMatchObject({ reason: "policy_denied" });
    expect((await store.listDecisions({ operation_id: "op-next" }))[0]).toMatchObject({ reason: "limit_exceeded", policy_version: v2.version });
  });

  it("an approval requested by a call records the policy that asked for it, even when swapped during the call", async () => {
    store = openSqliteStore(":memory:");
    const v1 = await loadGeneratedPolicy();
    const v2 = await loadGeneratedPolicy(readOnlyViewersRemoved());
    const g = gate(store, v1);
    const swapping = swapAfterEvaluating(v1, () => g.runtime.setPolicy(v2));
    g.runtime.setPolicy(swapping);
    const ask = await g.runtime.call(alice, { tool: "reserve_funds", args: reserve(5), operation_id: "op-asked" });
    expect(ask).toMatchObject({ reason: "approval_required" });
    const approval = await store.getApproval(ask.outcome === "terminal_failure" ? ask.approval_id! : "");
    expect(approval?.policy_version).toBe(v1.version);
    expect((await store.listDecisions({ operation_id: "op-asked" }))[0]).toMatchObject({ decision: "approval_required", policy_version: v1.version });
    expect(g.runtime.policyVersion).toBe(v2.version);
  });

  it("approvals decided after a swap bind to the new policy version", async () => {
    store = openSqliteStore(":memory:");
    const v1 = await loadGeneratedPolicy();
    const v2 = await loadGeneratedPolicy(readOnlyViewersRemoved());
    const g = gate(store, v1);
    const ask = await g.runtime.call(alice, { tool: "reserve_funds", args: reserve(5), operation_id: "op-a" });
    g.runtime.setPolicy(v2);
    const id = ask.outcome === "terminal_failure" ? ask.approval_id! : "";
    const d = await g.runtime.approvals.decide(id, { decision: "approve" }, bob);
    expect(d.ok && d.approval.decision?.policy_version).toBe(v2.version);
    expect((await approvedWrite(g, alice, reserve(6), "op-b")).outcome).toBe("success");
  });

  it("refuses something that is not a policy engine and keeps the current one", async () => {
    store = openSqliteStore(":memory:");
    const v1 = await loadGeneratedPolicy();
    const g = gate(store, v1);
    expect(() => g.runtime.setPolicy({ version: 7 } as unknown as PolicyEngine)).toThrow(/PolicyEngine/);
    expect(g.runtime.policyVersion).toBe(v1.version);
  });
});

describe("watchPolicy", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reloads a bundle when it changes, validates it loads first, and keeps the old policy on a broken file", async () => {
    store = openSqliteStore(":memory:");
    dir = mkdtempSync(join(tmpdir(), "toolgate-watch-"));
    const file = join(dir, "bundle.tar.gz");
    const wasm = new Uint8Array(readFileSync(POLICY_WASM));
    writeFileSync(file, bundleBytes({ wasm, data: shippedData(), entrypoints: [ENTRYPOINT] }));
    const v1 = await loadGeneratedPolicy();
    const g = gate(store, v1);
    const reloads: string[] = [];
    const errors: unknown[] = [];
    const watcher = g.runtime.watchPolicy(file, { debounceMs: 10, onReload: (e) => reloads.push(e.version), onError: (e) => errors.push(e) });
    try {
      expect(await watcher.reload()).toEqual({ swapped: false, why: "unchanged", version: v1.version });
      // A new bundle: picked up by the file watch.
      writeFileSync(file, bundleBytes({ wasm, data: readOnlyViewersRemoved(), entrypoints: [ENTRYPOINT] }));
      await until(() => reloads.length === 1);
      expect(g.runtime.policyVersion).toBe(reloads[0]);
      expect(g.runtime.policyVersion).not.toBe(v1.version);
      expect(await g.runtime.call(victor, { tool: "get_account", args: { account_id: "acc_alice" } })).toMatchObject({ reason: "policy_denied" });
      // A half-written file: reported, and the policy in force stays.
      const before = g.runtime.policyVersion;
      writeFileSync(file, readFileSync(file).subarray(0, 100));
      await until(() => errors.length >= 1);
      expect(String(errors[0])).toMatch(/bundle|gzip|tar/);
      expect(g.runtime.policyVersion).toBe(before);
      expect((await watcher.reload()) as ReloadResult).toMatchObject({ swapped: false, why: "load_failed" });
      expect(g.runtime.policyVersion).toBe(before);
    } finally {
      watcher.close();
    }
  });

  it("reloads a bare policy.wasm; a wasm without the entrypoint is refused", async () => {
    store = openSqliteStore(":memory:");
    dir = mkdtempSync(join(tmpdir(), "toolgate-watch-"));
    const file = join(dir, "policy.wasm");
    copyFileSync(POLICY_WASM, file);
    const g = gate(store, await loadGeneratedPolicy(readOnlyViewersRemoved()));
    const errors: unknown[] = [];
    const watcher = g.runtime.watchPolicy(file, { data: shippedData(), onError: (e) => errors.push(e) });
    try {
      const r = await watcher.reload();
      expect(r.swapped).toBe(true);
      expect(g.runtime.policyVersion).toBe((await loadGeneratedPolicy()).version);
      const wrong = g.runtime.watchPolicy(file, { entrypoint: "no/such/rule", onError: (e) => errors.push(e) });
      try {
        expect(await wrong.reload()).toMatchObject({ swapped: false, why: "load_failed" });
        expect(String(errors.at(-1))).toContain("no entrypoint");
      } finally {
        wrong.close();
      }
    } finally {
      watcher.close();
    }
  });
});
