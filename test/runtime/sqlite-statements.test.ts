/**
 * The statements an approved write sends to SQLite, counted (not timed): authorize claims the
 * new key first, in one transaction of two statements (the INSERT, which checks the run's
 * interrupt flag and the approval it is guarded by, then the call-state read of the approval
 * with its latest decision), and the outcome decides in its UPDATE; 9 statements in all, as
 * when the call-state read came before the claim's transaction (11 when the claim and the
 * outcome read before writing, 16 before those reads were folded).
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { alice, approved, loadShippedPolicy, makeGate, reserveArgs } from "./harness.js";
import { countedApprovedWrite } from "./counted-write.js";
import { countingSqliteStore } from "./statement-count.js";

describe("sqlite statements of an approved write", () => {
  let policy: PolicyEngine;
  beforeAll(async () => {
    policy = await loadShippedPolicy();
  });

  it("claim-first claims in one statement and reads the call state in one, in one transaction; 9 statements per approved write", async () => {
    const c = countingSqliteStore();
    const { env } = await countedApprovedWrite(c, policy, "op-st");
    expect(env).toMatchObject({ outcome: "success" });
    const log = c.counts.log;
    const begin = log.findIndex((l) => /^BEGIN/i.test(l));
    const commit = log.findIndex((l, i) => i > begin && /^COMMIT/i.test(l));
    // Claim-first: the claim of a new key is one statement, which checks the interrupt and the
    // approval itself, then one statement reads the call state, in the same transaction; nothing before it.
    const claim = log.slice(begin + 1, commit);
    expect(claim, log.join("\n")).toHaveLength(2);
    expect(claim[0], log.join("\n")).toMatch(/^INSERT INTO operations/i);
    expect(claim[1], log.join("\n")).toMatch(/^SELECT o\.tenant, o\.operation_id/i);
    expect(begin, log.join("\n")).toBe(0);
    expect(c.counts.statements, log.join("\n")).toBeLessThanOrEqual(9);
    await c.store.close();
  });

  it("a guarded claim still sees a revoke committed after authorize read the approval", async () => {
    const c = countingSqliteStore();
    const g = makeGate({ policy, store: c.store });
    const op = `op-rv-${randomUUID()}`;
    const approvalId = await approved(g, alice, "reserve_funds", reserveArgs(), op);
    const now = Date.now();
    const claim = (approval: string | null) =>
      c.store.claimOperation({ tenant: alice.tenant, operation_id: op, tool: "reserve_funds", fingerprint: "f", owner: "o", now_ms: now, lease_ms: 1_000, retention_ms: 60_000, guard: { run_id: alice.run_id, approval_id: approval } });
    await c.store.decideApproval({ approval_id: approvalId, decision: "revoke", approver: "bob", approver_roles: [], reason: null, edited_args: null, decided_at_ms: now, policy_version: "", policy_code_version: "", policy_data_version: "" });
    expect(await claim(approvalId)).toMatchObject({ kind: "refused", why: "approval_invalid", detail: "revoked" });
    await c.store.setInterrupt({ tenant: alice.tenant, run_id: alice.run_id, reason: "stop", at_ms: now });
    expect(await claim(null)).toMatchObject({ kind: "refused", why: "interrupted", detail: "stop" });
    await c.store.close();
  });
});
