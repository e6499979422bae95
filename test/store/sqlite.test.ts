import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore, planRecord } from "../../src/store/index.js";
import { checkGuard } from "../../src/store/claim.js";
import type { ApprovalStatus, DecisionLogEntry, OperationRecord, RecordOutcomeRequest } from "../../src/store/store.js";
import { runStoreContract } from "./contract.js";
import { runDecisionLogContract } from "./decision-log-contract.js";

runStoreContract("sqlite :memory:", async () => ({ store: openSqliteStore(":memory:") }));

runStoreContract("sqlite file (two connections)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-store-"));
  const path = join(dir, "state.db");
  return {
    store: openSqliteStore(path),
    openPeer: async () => openSqliteStore(path),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

runDecisionLogContract("sqlite file (two connections)", async (decisionLog) => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-store-"));
  const path = join(dir, "state.db");
  return {
    store: openSqliteStore(path, { decisionLog }),
    openPeer: async () => openSqliteStore(path),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe("sqlite store specifics", () => {
  it("a file store uses WAL and keeps state across reopen", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-store-"));
    try {
      const path = join(dir, "state.db");
      const a = openSqliteStore(path);
      await a.setInterrupt({ tenant: "t", run_id: "r", reason: "stop", at_ms: 1 });
      await a.close();
      const b = openSqliteStore(path);
      expect(await b.getInterrupt("t", "r")).toMatchObject({ reason: "stop" });
      await b.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const T0 = 1_700_000_000_000;
  const claimOf = (operation_id: string) =>
    ({ tenant: "t1", operation_id, tool: "reserve_funds", fingerprint: "f".repeat(64), owner: "w", now_ms: T0, lease_ms: 1_000, retention_ms: 60_000 }) as const;

  it("an outcome's answer is the record as planRecord writes it and as stored, for every status and keep_lease", async () => {
    const store = openSqliteStore(":memory:");
    let n = 0;
    for (const status of ["final", "unknown", "retryable"] as const) {
      for (const keep_lease of [true, false, undefined]) {
        const op = `op-${n++}`;
        const claimed = await store.claimOperation(claimOf(op));
        if (claimed.kind !== "claimed") throw new Error(claimed.kind);
        const before: OperationRecord = claimed.record;
        const req: RecordOutcomeRequest = {
          tenant: "t1", operation_id: op, fence_token: 1, status, envelope: { outcome: "x", n }, now_ms: T0 + 100, ...(keep_lease === undefined ? {} : { keep_lease }),
        };
        const r = await store.recordOutcome(req);
        expect(r.recorded).toBe(true);
        expect(r.record).toEqual(planRecord(before, req).write);
        expect(r.record).toEqual(await store.getOperation("t1", op, T0 + 100));
      }
    }
    await store.close();
  });

  it("the decision log keeps the order of decisions: an outcome's entry follows entries appended before it, also while their batch is being written", async () => {
    const store = openSqliteStore(":memory:", { decisionLog: { maxBatchRows: 1 } });
    const entry = (at_ms: number, operation_id: string | null): DecisionLogEntry => ({
      at_ms, tenant: "t1", run_id: "r", user: "u", tool: "reserve_funds", operation_id, fingerprint: null,
      decision: "allow", reason: "ok", policy_version: "pv", outcome: "success", outcome_reason: null,
    });
    const claimed = await store.claimOperation(claimOf("op-w"));
    if (claimed.kind !== "claimed") throw new Error(claimed.kind);
    // A batch of one row starts writing at once; the outcome does not wait for it to settle.
    await store.appendDecision(entry(T0 + 1, null));
    const r = await store.recordOutcome({ tenant: "t1", operation_id: "op-w", fence_token: 1, status: "final", envelope: { outcome: "success" }, now_ms: T0 + 2, decision: entry(T0 + 2, "op-w") });
    expect(r.recorded).toBe(true);
    expect((await store.listDecisions({ tenant: "t1" })).map((d) => d.operation_id)).toEqual(["op-w", null]);
    await store.close();
  });

  it("a guarded claim of a new key is made exactly when checkGuard lets it, and a refused one writes nothing", async () => {
    const store = openSqliteStore(":memory:");
    const statuses = ["pending", "approved", "edited", "rejected", "revoked"] as const satisfies readonly ApprovalStatus[];
    const versions = { policy_version: "pv", policy_code_version: "pc", policy_data_version: "pd" };
    const decisionOf = { approved: "approve", edited: "edit", rejected: "reject", revoked: "revoke" } as const;
    for (const [k, status] of statuses.entries()) {
      await store.createApproval({
        id: `apr-${status}`, tenant: "t1", run_id: "r1", requested_by: "u", tool: "reserve_funds", args: {}, preview: {}, fingerprint: "f".repeat(64),
        args_hash: "h", operation_id: null, created_at_ms: T0, expires_at_ms: T0 + 1_000 + k, ...versions,
      });
      if (status !== "pending") {
        if (status === "revoked") await store.decideApproval({ approval_id: `apr-${status}`, decision: "approve", approver: "a", approver_roles: [], reason: null, edited_args: null, decided_at_ms: T0, ...versions });
        await store.decideApproval({ approval_id: `apr-${status}`, decision: decisionOf[status], approver: "a", approver_roles: [], reason: null, edited_args: status === "edited" ? {} : null, decided_at_ms: T0, ...versions });
      }
    }
    // Interrupts of another run and of another tenant's run of the same name stop nothing here.
    await store.setInterrupt({ tenant: "t1", run_id: "r-stopped", reason: "stop", at_ms: T0 });
    await store.setInterrupt({ tenant: "t2", run_id: "r1", reason: "stop", at_ms: T0 });
    let n = 0;
    for (const tenant of ["t1", "t2"]) {
      for (const run_id of ["r1", "r-stopped"]) {
        for (const approval_id of [null, "apr-none", ...statuses.map((st) => `apr-${st}`)]) {
          for (const now_ms of [T0 + 500, T0 + 1_001, T0 + 2_000]) {
            const req = { ...claimOf(`op-${n++}`), tenant, now_ms, guard: { run_id, approval_id } };
            const interrupt = await store.getInterrupt(tenant, run_id);
            const a = approval_id === null ? null : await store.getApproval(approval_id);
            const expected = checkGuard(req, { interrupt, approval: a });
            const got = await store.claimOperation(req);
            if (expected !== null) {
              expect(got).toEqual(expected);
              expect(await store.getOperation(tenant, req.operation_id, now_ms)).toBeNull();
            } else {
              expect(got).toMatchObject({ kind: "claimed", previous: null, record: { fence_token: 1, attempts: 1, lease_owner: "w", envelope: null } });
              expect(await store.getOperation(tenant, req.operation_id, now_ms)).toEqual(got.record);
            }
          }
        }
      }
    }
    await store.close();
  });
});
