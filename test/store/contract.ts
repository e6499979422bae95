/**
 * The Store contract: every backend (SQLite here, PostgreSQL in test/store/postgres*.test.ts)
 * runs this suite. `makeStore` must return an empty, isolated store; `openPeer`, when
 * given, opens a second handle (another connection) on the same state, used to show
 * that claims are atomic across connections, not only within one.
 */
import { afterEach, describe, expect, it } from "vitest";
import { checkGuard, planClaim, planRecord } from "../../src/store/claim.js";
import type { ApprovalEvent, ApprovalStatus, ClaimFirstRequest, ClaimRequest, NewApproval, OperationRecord, RecordOutcomeRequest, Store } from "../../src/store/store.js";

export interface StoreUnderTest {
  readonly store: Store;
  readonly openPeer?: () => Promise<Store>;
  readonly dispose?: () => Promise<void>;
}

const T0 = 1_700_000_000_000;

const claim = (over: Partial<ClaimRequest> = {}): ClaimRequest => ({
  tenant: "t1",
  operation_id: "op-1",
  tool: "reserve_funds",
  fingerprint: "f".repeat(64),
  owner: "worker-a",
  now_ms: T0,
  lease_ms: 1_000,
  retention_ms: 60_000,
  ...over,
});

const approval = (over: Partial<NewApproval> = {}): NewApproval => ({
  id: "apr-1",
  tenant: "t1",
  run_id: "run-1",
  requested_by: "alice",
  tool: "reserve_funds",
  args: { account_id: "acc_1", amount: 10, currency: "EUR", recipient: "acc_2", memo: "rent" },
  preview: { account_id: "acc_1", amount: 10, currency: "EUR", recipient: "acc_2" },
  fingerprint: "a".repeat(64),
  args_hash: "b".repeat(64),
  operation_id: "op-1",
  created_at_ms: T0,
  expires_at_ms: T0 + 900_000,
  policy_version: "pv-1",
  policy_code_version: "pc-1",
  policy_data_version: "pd-1",
  ...over,
});

const decision = (over: Partial<ApprovalEvent> = {}): ApprovalEvent => ({
  approval_id: "apr-1",
  decision: "approve",
  approver: "bob",
  approver_roles: ["approver"],
  reason: "looks right",
  edited_args: null,
  decided_at_ms: T0 + 1_000,
  policy_version: "pv-1",
  policy_code_version: "pc-1",
  policy_data_version: "pd-1",
  ...over,
});

const ok = { outcome: "success", value: { id: "r1" }, replayed: false };

export function runStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`Store contract: ${name}`, () => {
    let current: StoreUnderTest | null = null;
    const open = async (): Promise<StoreUnderTest> => (current = await makeStore());
    afterEach(async () => {
      await current?.store.close();
      await current?.dispose?.();
      current = null;
    });

    describe("operations", () => {
      it("a first claim creates the record with fence token 1 and a lease", async () => {
        const { store } = await open();
        const r = await store.claimOperation(claim());
        expect(r.kind).toBe("claimed");
        if (r.kind !== "claimed") return;
        expect(r.previous).toBeNull();
        expect(r.record).toMatchObject({ status: "in_progress", fence_token: 1, attempts: 1, lease_expires_at_ms: T0 + 1_000 });
        expect(await store.getOperation("t1", "op-1", T0)).toMatchObject({ fence_token: 1, fingerprint: "f".repeat(64) });
      });

      it("a second claim while the lease is held is busy and does not change the token", async () => {
        const { store } = await open();
        await store.claimOperation(claim());
        const r = await store.claimOperation(claim({ owner: "worker-b", now_ms: T0 + 999 }));
        expect(r.kind).toBe("busy");
        expect(r.record?.fence_token).toBe(1);
      });

      it("the same operation id with another fingerprint is a conflict, also after the outcome", async () => {
        const { store } = await open();
        await store.claimOperation(claim());
        expect((await store.claimOperation(claim({ fingerprint: "0".repeat(64) }))).kind).toBe("conflict");
        await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 1, status: "final", envelope: ok, now_ms: T0 + 1 });
        expect((await store.claimOperation(claim({ fingerprint: "0".repeat(64), now_ms: T0 + 5_000 }))).kind).toBe("conflict");
      });

      it("takeover happens only after lease expiry and increments the fence token", async () => {
        const { store } = await open();
        await store.claimOperation(claim());
        const r = await store.claimOperation(claim({ owner: "worker-b", now_ms: T0 + 1_000 }));
        expect(r.kind).toBe("claimed");
        if (r.kind !== "claimed") return;
        expect(r.previous).toBe("in_progress");
        // Taking over a crashed owner's claim reconciles first: it counts no attempt of its own.
        expect(r.record).toMatchObject({ fence_token: 2, lease_owner: "worker-b", attempts: 1 });
      });

      it("an outcome is recorded only under the current fence token", async () => {
        const { store } = await open();
        await store.claimOperation(claim());
        await store.claimOperation(claim({ owner: "worker-b", now_ms: T0 + 2_000 }));
        const stale = await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 1, status: "final", envelope: ok, now_ms: T0 + 2_001 });
        expect(stale).toMatchObject({ recorded: false, why: "stale_fence" });
        const fresh = await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 2, status: "final", envelope: ok, now_ms: T0 + 2_002 });
        expect(fresh.recorded).toBe(true);
        expect(await store.getOperation("t1", "op-1", T0 + 2_003)).toMatchObject({ status: "final", envelope: ok, fence_token: 2 });
      });

      it("a final outcome is recorded once and every later claim replays it", async () => {
        const { store } = await open();
        await store.claimOperation(claim());
        await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 1, status: "final", envelope: ok, now_ms: T0 + 1 });
        const again = await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 1, status: "final", envelope: { outcome: "other" }, now_ms: T0 + 2 });
        expect(again).toMatchObject({ recorded: false, why: "already_final" });
        const r = await store.claimOperation(claim({ now_ms: T0 + 10_000 }));
        expect(r.kind).toBe("final");
        expect(r.record?.envelope).toEqual(ok);
        expect(r.record?.fence_token).toBe(1);
      });

      it("retryable and unknown outcomes release the lease: the next claim takes over at once", async () => {
        const { store } = await open();
        for (const status of ["retryable", "unknown"] as const) {
          const op = `op-${status}`;
          await store.claimOperation(claim({ operation_id: op }));
          await store.recordOutcome({ tenant: "t1", operation_id: op, fence_token: 1, status, envelope: { outcome: "retryable_failure" }, now_ms: T0 + 1 });
          const r = await store.claimOperation(claim({ operation_id: op, now_ms: T0 + 2 }));
          expect(r.kind).toBe("claimed");
          if (r.kind !== "claimed") return;
          expect(r.previous).toBe(status);
          // After a retryable answer the handler runs again (one more attempt); after unknown the runtime reconciles first.
          expect(r.record).toMatchObject({ fence_token: 2, attempts: status === "retryable" ? 2 : 1, status: "in_progress" });
        }
      });

      it("recording for a missing operation writes nothing", async () => {
        const { store } = await open();
        const r = await store.recordOutcome({ tenant: "t1", operation_id: "nope", fence_token: 1, status: "final", envelope: ok, now_ms: T0 });
        expect(r).toMatchObject({ recorded: false, why: "missing" });
        expect(await store.getOperation("t1", "nope", T0)).toBeNull();
      });

      it("operation ids are scoped by tenant", async () => {
        const { store } = await open();
        await store.claimOperation(claim());
        const other = await store.claimOperation(claim({ tenant: "t2", fingerprint: "b".repeat(64) }));
        expect(other.kind).toBe("claimed");
        expect(other.record?.fence_token).toBe(1);
      });

      it("records expire after retention; a new claim starts over with a higher fence token", async () => {
        const { store } = await open();
        await store.claimOperation(claim());
        await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 1, status: "final", envelope: ok, now_ms: T0 + 1 });
        expect(await store.getOperation("t1", "op-1", T0 + 59_999)).not.toBeNull();
        expect(await store.getOperation("t1", "op-1", T0 + 60_000)).toBeNull();
        const r = await store.claimOperation(claim({ fingerprint: "c".repeat(64), now_ms: T0 + 60_000 }));
        expect(r.kind).toBe("claimed");
        if (r.kind !== "claimed") return;
        expect(r.previous).toBeNull();
        expect(r.record).toMatchObject({ fence_token: 2, attempts: 1, envelope: null, fingerprint: "c".repeat(64) });
      });

      it("purgeExpired deletes records past retention only", async () => {
        const { store } = await open();
        await store.claimOperation(claim({ operation_id: "short", retention_ms: 10 }));
        await store.recordOutcome({ tenant: "t1", operation_id: "short", fence_token: 1, status: "final", envelope: ok, now_ms: T0 + 1 });
        await store.claimOperation(claim({ operation_id: "long" }));
        expect(await store.purgeExpired(T0 + 10)).toBe(1);
        expect(await store.getOperation("t1", "long", T0 + 10)).not.toBeNull();
      });

      it("a record whose lease is live is never expired: not purged, not claimed afresh, still read", async () => {
        const { store } = await open();
        // Retention shorter than the lease: the handler is still running when retention passes.
        await store.claimOperation(claim({ retention_ms: 10, lease_ms: 1_000 }));
        expect(await store.purgeExpired(T0 + 500)).toBe(0);
        expect(await store.getOperation("t1", "op-1", T0 + 500)).toMatchObject({ status: "in_progress", fence_token: 1 });
        const second = await store.claimOperation(claim({ owner: "worker-b", now_ms: T0 + 500, retention_ms: 10 }));
        expect(second.kind).toBe("busy");
        // Once the lease is over too, the record is gone and a claim starts over.
        expect(await store.getOperation("t1", "op-1", T0 + 1_000)).toBeNull();
        const fresh = await store.claimOperation(claim({ owner: "worker-b", now_ms: T0 + 1_000, retention_ms: 10 }));
        expect(fresh).toMatchObject({ kind: "claimed", previous: null, record: { fence_token: 2, attempts: 1 } });
      });

      it("an unknown outcome recorded with keep_lease stays claimed until the lease runs out", async () => {
        const { store } = await open();
        await store.claimOperation(claim({ lease_ms: 1_000 }));
        const timedOut = { outcome: "retryable_failure", reason: "timeout" };
        expect(await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 1, status: "unknown", envelope: timedOut, now_ms: T0 + 100, keep_lease: true })).toMatchObject({
          recorded: true,
          record: { status: "unknown", lease_expires_at_ms: T0 + 1_000 },
        });
        expect((await store.claimOperation(claim({ owner: "worker-b", now_ms: T0 + 999 }))).kind).toBe("busy");
        // The late answer lands under the same token and wins over the unknown.
        expect((await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 1, status: "final", envelope: ok, now_ms: T0 + 300 })).recorded).toBe(true);
        expect(await store.claimOperation(claim({ owner: "worker-b", now_ms: T0 + 301 }))).toMatchObject({ kind: "final", record: { envelope: ok } });
        // Without a late answer, the claim is taken over after the lease, and must reconcile.
        await store.claimOperation(claim({ operation_id: "op-2", lease_ms: 1_000 }));
        await store.recordOutcome({ tenant: "t1", operation_id: "op-2", fence_token: 1, status: "unknown", envelope: timedOut, now_ms: T0 + 100, keep_lease: true });
        expect(await store.claimOperation(claim({ operation_id: "op-2", owner: "worker-b", now_ms: T0 + 1_000 }))).toMatchObject({ kind: "claimed", previous: "unknown", record: { fence_token: 2 } });
      });

      it("a guarded claim is refused, writing nothing, while the run is interrupted or the approval is not approved and unexpired", async () => {
        const { store } = await open();
        await store.createApproval(approval({ id: "apr-g", expires_at_ms: T0 + 5_000 }));
        const guarded = (over: Partial<ClaimRequest> = {}) => claim({ operation_id: "op-g", guard: { run_id: "run-1", approval_id: "apr-g" }, ...over });
        expect(await store.claimOperation(guarded())).toEqual({ kind: "refused", why: "approval_invalid", detail: "pending", record: null });
        expect(await store.claimOperation(guarded({ guard: { run_id: "run-1", approval_id: "apr-none" } }))).toMatchObject({ kind: "refused", detail: "missing" });
        expect(await store.claimOperation(guarded({ tenant: "t2" }))).toMatchObject({ kind: "refused", detail: "missing" });
        expect((await store.decideApproval(decision({ approval_id: "apr-g" }))).ok).toBe(true);
        expect(await store.claimOperation(guarded({ now_ms: T0 + 5_000 }))).toMatchObject({ kind: "refused", detail: "expired" });
        await store.setInterrupt({ tenant: "t1", run_id: "run-1", reason: "stop", at_ms: T0 });
        expect(await store.claimOperation(guarded())).toEqual({ kind: "refused", why: "interrupted", detail: "stop", record: null });
        expect(await store.claimOperation(guarded({ guard: { run_id: "run-1", approval_id: null } }))).toMatchObject({ kind: "refused", why: "interrupted" });
        expect(await store.getOperation("t1", "op-g", T0)).toBeNull();
        await store.clearInterrupt("t1", "run-1");
        expect(await store.claimOperation(guarded())).toMatchObject({ kind: "claimed", record: { fence_token: 1 } });
        // A takeover is guarded too: a revoke stops it and leaves the record as it was.
        await store.recordOutcome({ tenant: "t1", operation_id: "op-g", fence_token: 1, status: "retryable", envelope: { outcome: "retryable_failure" }, now_ms: T0 + 1 });
        expect((await store.decideApproval(decision({ approval_id: "apr-g", decision: "revoke", decided_at_ms: T0 + 2 }))).ok).toBe(true);
        expect(await store.claimOperation(guarded({ now_ms: T0 + 3 }))).toMatchObject({ kind: "refused", detail: "revoked" });
        expect(await store.getOperation("t1", "op-g", T0 + 3)).toMatchObject({ status: "retryable", fence_token: 1 });
        // Without a guard nothing but the record decides.
        expect((await store.claimOperation(claim({ operation_id: "op-g", now_ms: T0 + 3 }))).kind).toBe("claimed");
      });

      it("refundAttempt takes one attempt back, only for the current holder, never below one", async () => {
        const { store } = await open();
        await store.claimOperation(claim());
        expect(await store.refundAttempt({ tenant: "t1", operation_id: "op-1", fence_token: 1, now_ms: T0 })).toBe(false);
        await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 1, status: "retryable", envelope: { outcome: "retryable_failure" }, now_ms: T0 + 1 });
        const taken = await store.claimOperation(claim({ owner: "worker-b", now_ms: T0 + 1_000 }));
        expect(taken).toMatchObject({ kind: "claimed", record: { attempts: 2, fence_token: 2 } });
        expect(await store.refundAttempt({ tenant: "t1", operation_id: "op-1", fence_token: 1, now_ms: T0 + 1_001 })).toBe(false);
        expect(await store.refundAttempt({ tenant: "t1", operation_id: "op-1", fence_token: 2, now_ms: T0 + 1_001 })).toBe(true);
        expect(await store.getOperation("t1", "op-1", T0 + 1_001)).toMatchObject({ attempts: 1, fence_token: 2, status: "in_progress" });
        await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 2, status: "final", envelope: ok, now_ms: T0 + 1_002 });
        expect(await store.refundAttempt({ tenant: "t1", operation_id: "op-1", fence_token: 2, now_ms: T0 + 1_003 })).toBe(false);
      });

      it("retry budget: takeovers of crashed (in_progress) or unknown claims count no attempt, so crashes while reconciling never exhaust it", async () => {
        const { store } = await open();
        await store.claimOperation(claim());
        // Five retries that each took over and crashed while reconciling (no outcome recorded).
        for (let k = 1; k <= 5; k++) {
          const r = await store.claimOperation(claim({ owner: `retry-${k}`, now_ms: T0 + 1_000 * k }));
          expect(r).toMatchObject({ kind: "claimed", previous: "in_progress", record: { attempts: 1, fence_token: k + 1 } });
        }
        await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 6, status: "unknown", envelope: { outcome: "retryable_failure" }, now_ms: T0 + 5_001 });
        expect(await store.claimOperation(claim({ now_ms: T0 + 6_000 }))).toMatchObject({ kind: "claimed", previous: "unknown", record: { attempts: 1 } });
        await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 7, status: "retryable", envelope: { outcome: "retryable_failure" }, now_ms: T0 + 6_001 });
        expect(await store.claimOperation(claim({ now_ms: T0 + 6_002 }))).toMatchObject({ kind: "claimed", previous: "retryable", record: { attempts: 2 } });
      });

      it("purgeExpired deletes approvals that expired undecided and keeps decided ones for audit", async () => {
        const { store } = await open();
        for (let i = 0; i < 20; i++) await store.createApproval(approval({ id: `apr-p${i}`, fingerprint: `${i}`.padStart(64, "0"), expires_at_ms: T0 + 1_000 }));
        await store.createApproval(approval({ id: "apr-live", expires_at_ms: T0 + 5_000 }));
        await store.createApproval(approval({ id: "apr-ok", expires_at_ms: T0 + 1_000 }));
        expect((await store.decideApproval(decision({ approval_id: "apr-ok", decided_at_ms: T0 + 10 }))).ok).toBe(true);
        expect(await store.purgeExpired(T0 + 1_000)).toBe(20);
        expect(await store.getApproval("apr-p0")).toBeNull();
        expect(await store.getApproval("apr-p19")).toBeNull();
        expect(await store.getApproval("apr-live")).toMatchObject({ status: "pending" });
        expect(await store.getApproval("apr-ok")).toMatchObject({ status: "approved" });
        expect(await store.purgeExpired(T0 + 1_000)).toBe(0);
      });

      it("many concurrent claims of one operation: exactly one is claimed", async () => {
        const sut = await open();
        const peer = sut.openPeer === undefined ? sut.store : await sut.openPeer();
        try {
          const results = await Promise.all(
            Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? sut.store : peer).claimOperation(claim({ owner: `w${i}` }))),
          );
          expect(results.filter((r) => r.kind === "claimed")).toHaveLength(1);
          expect(results.filter((r) => r.kind === "busy")).toHaveLength(23);
          expect(new Set(results.map((r) => r.record?.fence_token))).toEqual(new Set([1]));
        } finally {
          if (peer !== sut.store) await peer.close();
        }
      });
    });

    describe("writes decided in their writing statement", () => {
      const claimNew = (operation_id: string) => claim({ operation_id, owner: "w" });

      it("an outcome's answer is the record as planRecord writes it and as stored, for every status and keep_lease", async () => {
        const { store } = await open();
        let n = 0;
        for (const status of ["final", "unknown", "retryable"] as const) {
          for (const keep_lease of [true, false, undefined]) {
            const op = `op-${n++}`;
            const claimed = await store.claimOperation(claimNew(op));
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
      });

      it("a guarded claim of a new key is made exactly when checkGuard lets it, and a refused one writes nothing", async () => {
        const { store } = await open();
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
                const req = { ...claimNew(`op-${n++}`), tenant, now_ms, guard: { run_id, approval_id } };
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
      });
    });

    describe("approvals", () => {
      it("a created approval is pending with its exact preview, fingerprint, tenant, expiry and policy version", async () => {
        const { store } = await open();
        await store.createApproval(approval());
        expect(await store.getApproval("apr-1")).toEqual({ ...approval(), status: "pending", decision: null, consumed_by: null, consumed_at_ms: null });
        expect(await store.getApproval("missing")).toBeNull();
      });

      it("findPendingApproval matches tenant and fingerprint and skips expired or decided ones", async () => {
        const { store } = await open();
        await store.createApproval(approval());
        expect((await store.findPendingApproval("t1", "a".repeat(64), T0 + 1))?.id).toBe("apr-1");
        expect(await store.findPendingApproval("t2", "a".repeat(64), T0 + 1)).toBeNull();
        expect(await store.findPendingApproval("t1", "b".repeat(64), T0 + 1)).toBeNull();
        expect(await store.findPendingApproval("t1", "a".repeat(64), T0 + 900_000)).toBeNull();
        await store.decideApproval(decision({ decision: "reject" }));
        expect(await store.findPendingApproval("t1", "a".repeat(64), T0 + 1)).toBeNull();
      });

      it("a decision is an event with approver, reason, time and policy version, and settles the approval once", async () => {
        const { store } = await open();
        await store.createApproval(approval());
        const first = await store.decideApproval(decision());
        expect(first.ok).toBe(true);
        expect(first.approval).toMatchObject({ status: "approved", decision: decision() });
        const second = await store.decideApproval(decision({ decision: "reject", approver: "mallory" }));
        expect(second).toMatchObject({ ok: false, why: "already_decided" });
        expect(await store.listApprovalEvents("apr-1")).toEqual([decision()]);
        expect((await store.getApproval("apr-1"))?.decision).toEqual(decision());
      });

      it("edit records the edited arguments; reject records the reason", async () => {
        const { store } = await open();
        await store.createApproval(approval({ id: "apr-e" }));
        await store.createApproval(approval({ id: "apr-r" }));
        const edited = { account_id: "acc_1", amount: 5, currency: "EUR", recipient: "acc_2" };
        const e = await store.decideApproval(decision({ approval_id: "apr-e", decision: "edit", edited_args: edited }));
        expect(e.approval).toMatchObject({ status: "edited", decision: { edited_args: edited } });
        const r = await store.decideApproval(decision({ approval_id: "apr-r", decision: "reject", reason: "wrong recipient" }));
        expect(r.approval).toMatchObject({ status: "rejected", decision: { reason: "wrong recipient" } });
      });

      it("revoke withdraws a pending or given approval, even after expiry, and is an event too", async () => {
        const { store } = await open();
        await store.createApproval(approval());
        await store.decideApproval(decision());
        const revoked = await store.decideApproval(decision({ decision: "revoke", approver: "carol", reason: "customer called", decided_at_ms: T0 + 900_001 }));
        expect(revoked).toMatchObject({ ok: true, approval: { status: "revoked", decision: { decision: "revoke", approver: "carol" } } });
        expect((await store.listApprovalEvents("apr-1")).map((e) => e.decision)).toEqual(["approve", "revoke"]);
        expect(await store.getApproval("apr-1")).toMatchObject({ status: "revoked", decision: { decision: "revoke" } });
        expect(await store.decideApproval(decision({ decision: "revoke" }))).toMatchObject({ ok: false, why: "already_decided" });
        await store.createApproval(approval({ id: "apr-rej" }));
        await store.decideApproval(decision({ approval_id: "apr-rej", decision: "reject" }));
        expect(await store.decideApproval(decision({ approval_id: "apr-rej", decision: "revoke" }))).toMatchObject({ ok: false, why: "already_decided" });
      });

      it("an expired or unknown approval cannot be decided", async () => {
        const { store } = await open();
        await store.createApproval(approval());
        expect(await store.decideApproval(decision({ decided_at_ms: T0 + 900_000 }))).toMatchObject({ ok: false, why: "expired" });
        expect(await store.decideApproval(decision({ approval_id: "nope" }))).toMatchObject({ ok: false, why: "not_found" });
        expect(await store.listApprovalEvents("apr-1")).toEqual([]);
      });
    });

    describe("call state", () => {
      it("readCallState answers as getOperation, getInterrupt and getApproval do, each part only when asked", async () => {
        const { store } = await open();
        const req = { tenant: "t1", run_id: "run-1", operation_id: "op-1", approval_id: "apr-1", interrupt: true, now_ms: T0 };
        expect(await store.readCallState(req)).toEqual({ operation: null, interrupt: null, approval: null });
        const claimed = await store.claimOperation(claim());
        expect(claimed.kind).toBe("claimed");
        await store.createApproval(approval());
        await store.decideApproval(decision({ decision: "edit", edited_args: { amount: 5 } }));
        await store.setInterrupt({ tenant: "t1", run_id: "run-1", reason: "stop", at_ms: T0 + 5 });
        const state = await store.readCallState(req);
        expect(state.operation).toEqual(await store.getOperation("t1", "op-1", T0));
        expect(state.interrupt).toEqual({ tenant: "t1", run_id: "run-1", reason: "stop", at_ms: T0 + 5 });
        expect(state.approval).toEqual(await store.getApproval("apr-1"));
        expect(state.approval).toMatchObject({ status: "edited", decision: { decision: "edit", edited_args: { amount: 5 } } });
        // Not asked, absent, or of another tenant: null (the approval is returned whatever its tenant).
        expect(await store.readCallState({ ...req, operation_id: null, approval_id: null, interrupt: false })).toEqual({ operation: null, interrupt: null, approval: null });
        expect(await store.readCallState({ ...req, tenant: "t2" })).toMatchObject({ operation: null, interrupt: null, approval: { tenant: "t1" } });
        expect(await store.readCallState({ ...req, run_id: "run-2", approval_id: "nope" })).toMatchObject({ interrupt: null, approval: null });
        // A record past its retention (lease released) is not returned.
        expect((await store.readCallState({ ...req, now_ms: T0 + 61_000 })).operation).toBeNull();
      });

      it("readCallState returns every field of a recorded operation and of a consumed approval with its decision", async () => {
        const { store } = await open();
        await store.createApproval(approval());
        await store.decideApproval(decision());
        const claimed = await store.claimOperation(claim());
        if (claimed.kind !== "claimed") throw new Error(claimed.kind);
        const envelope = { outcome: "success", value: { id: "r1" }, replayed: false };
        const recorded = await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 1, status: "final", envelope, now_ms: T0 + 10, consume_approval_id: "apr-1" });
        expect(recorded.recorded).toBe(true);
        const state = await store.readCallState({ tenant: "t1", run_id: "run-1", operation_id: "op-1", approval_id: "apr-1", interrupt: true, now_ms: T0 + 20 });
        expect(state.operation).toEqual({
          ...claimed.record,
          status: "final",
          envelope,
          lease_expires_at_ms: T0 + 10,
          updated_at_ms: T0 + 10,
        });
        expect(state.approval).toEqual({ ...approval(), status: "approved", decision: decision(), consumed_by: "op-1", consumed_at_ms: T0 + 10 });
        expect(state.interrupt).toBeNull();
      });
    });

    describe("claim-first", () => {
      const first = (over: Partial<ClaimFirstRequest> = {}): ClaimFirstRequest => ({ ...claim(), guard: { run_id: "run-1", approval_id: "apr-1" }, interrupt: true, ...over });
      const stateReq = (req: ClaimFirstRequest) => ({
        tenant: req.tenant, run_id: req.guard.run_id, operation_id: req.operation_id, approval_id: req.guard.approval_id, interrupt: req.interrupt, now_ms: req.now_ms,
      });

      it("claim-first answers the same call state as readCallState, and claims exactly when no record exists and checkGuard lets it", async () => {
        const { store } = await open();
        const versions = { policy_version: "pv", policy_code_version: "pc", policy_data_version: "pd" };
        await store.createApproval(approval({ id: "apr-ok", operation_id: null, expires_at_ms: T0 + 1_500 }));
        await store.decideApproval(decision({ approval_id: "apr-ok", ...versions, decided_at_ms: T0 }));
        await store.createApproval(approval({ id: "apr-pending", operation_id: null }));
        await store.createApproval(approval({ id: "apr-revoked", operation_id: null }));
        await store.decideApproval(decision({ approval_id: "apr-revoked", decided_at_ms: T0 }));
        await store.decideApproval(decision({ approval_id: "apr-revoked", decision: "revoke", decided_at_ms: T0 }));
        await store.setInterrupt({ tenant: "t1", run_id: "r-stopped", reason: "stop", at_ms: T0 - 5 });
        // The record each key starts with: none, held, final, retryable (released), past its retention.
        const records = ["none", "held", "final", "retryable", "gone"] as const;
        let n = 0;
        for (const rec of records) {
          for (const tenant of ["t1", "t2"]) {
            for (const run_id of ["r1", "r-stopped"]) {
              for (const approval_id of [null, "apr-none", "apr-ok", "apr-pending", "apr-revoked"]) {
                for (const interrupt of [true, false]) {
                  const op = `op-${n++}`;
                  const at = rec === "gone" ? T0 - 120_000 : T0 - 10;
                  if (rec !== "none") {
                    const c = await store.claimOperation(claim({ tenant, operation_id: op, now_ms: at, lease_ms: rec === "held" ? 60_000 : 1_000 }));
                    if (c.kind !== "claimed") throw new Error(c.kind);
                    if (rec !== "held") await store.recordOutcome({ tenant, operation_id: op, fence_token: 1, status: rec === "retryable" ? "retryable" : "final", envelope: ok, now_ms: at + 1 });
                  }
                  const now_ms = T0 + 1_000;
                  const req = first({ tenant, operation_id: op, now_ms, owner: "w", guard: { run_id, approval_id }, interrupt });
                  const before = await store.readCallState(stateReq(req));
                  const raw = await store.getOperation(tenant, op, at + 2);
                  const guard = checkGuard(req, { interrupt: await store.getInterrupt(tenant, run_id), approval: approval_id === null ? null : await store.getApproval(approval_id) });
                  const got = await store.claimFirst(req);
                  expect(got.state, `${rec} ${tenant} ${run_id} ${approval_id} ${interrupt}`).toEqual(before);
                  if (raw === null && guard === null) {
                    expect(got.claimed).toEqual(planClaim(null, req).result);
                    expect(await store.getOperation(tenant, op, now_ms)).toEqual(got.claimed?.record);
                  } else {
                    expect(got.claimed, `${rec} ${tenant} ${run_id} ${approval_id} ${interrupt}`).toBeNull();
                    expect(await store.getOperation(tenant, op, at + 2)).toEqual(raw);
                  }
                }
              }
            }
          }
        }
      });

      it("many concurrent claim-firsts of one operation: exactly one claims, the others read no fresh claim of their own", async () => {
        const sut = await open();
        const peer = sut.openPeer === undefined ? sut.store : await sut.openPeer();
        try {
          await sut.store.createApproval(approval());
          await sut.store.decideApproval(decision());
          const results = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? sut.store : peer).claimFirst(first({ owner: `w${i}`, now_ms: T0 + 1_000 }))));
          const claimed = results.filter((r) => r.claimed !== null);
          expect(claimed).toHaveLength(1);
          expect(await sut.store.getOperation("t1", "op-1", T0 + 1_000)).toEqual(claimed[0]!.claimed!.record);
          for (const r of results) expect(r.state.approval).toMatchObject({ id: "apr-1", status: "approved" });
        } finally {
          if (peer !== sut.store) await peer.close();
        }
      });

      it("releaseClaim deletes a fresh claim only while it is exactly that claim; the next claim starts fresh", async () => {
        const { store } = await open();
        await store.createApproval(approval());
        await store.decideApproval(decision());
        const req = first({ now_ms: T0 + 1_000 });
        const got = await store.claimFirst(req);
        const fresh = got.claimed?.record;
        if (fresh === undefined) throw new Error("not claimed");
        // Not the same claim: another token, owner or creation time.
        for (const other of [{ fence_token: 2 }, { lease_owner: "worker-b" }, { created_at_ms: T0 + 999 }]) {
          expect(await store.releaseClaim({ ...fresh, ...other })).toBe(false);
        }
        expect(await store.getOperation("t1", "op-1", T0 + 1_000)).toEqual(fresh);
        // Once an outcome is recorded, or the record was taken over, it is no longer the fresh claim.
        await store.recordOutcome({ tenant: "t1", operation_id: "op-1", fence_token: 1, status: "retryable", envelope: ok, now_ms: T0 + 1_001 });
        expect(await store.releaseClaim(fresh)).toBe(false);
        const taken = await store.claimOperation(claim({ now_ms: T0 + 1_002 }));
        expect(taken).toMatchObject({ kind: "claimed", previous: "retryable", record: { fence_token: 2 } });
        expect(await store.releaseClaim(fresh)).toBe(false);
        expect(await store.getOperation("t1", "op-1", T0 + 1_002)).toMatchObject({ fence_token: 2, attempts: 2 });
        // The fresh claim itself goes, and a later claim of the key is fresh (no reconcile).
        const again = await store.claimFirst(first({ operation_id: "op-2", now_ms: T0 + 1_000 }));
        if (again.claimed === null) throw new Error("not claimed");
        expect(await store.releaseClaim(again.claimed.record)).toBe(true);
        expect(await store.getOperation("t1", "op-2", T0 + 1_000)).toBeNull();
        expect(await store.releaseClaim(again.claimed.record)).toBe(false);
        expect(await store.claimOperation(claim({ operation_id: "op-2", now_ms: T0 + 1_001 }))).toMatchObject({ kind: "claimed", previous: null, record: { fence_token: 1, attempts: 1 } });
      });
    });

    describe("interrupts and the decision log", () => {
      it("interrupt flags are set, read and cleared per tenant and run", async () => {
        const { store } = await open();
        await store.setInterrupt({ tenant: "t1", run_id: "run-1", reason: "user pressed stop", at_ms: T0 });
        expect(await store.getInterrupt("t1", "run-1")).toEqual({ tenant: "t1", run_id: "run-1", reason: "user pressed stop", at_ms: T0 });
        expect(await store.getInterrupt("t2", "run-1")).toBeNull();
        expect(await store.getInterrupt("t1", "run-2")).toBeNull();
        await store.clearInterrupt("t1", "run-1");
        expect(await store.getInterrupt("t1", "run-1")).toBeNull();
      });

      it("the decision log keeps every entry, newest first, filterable by tenant and operation", async () => {
        const { store } = await open();
        const base = {
          run_id: "run-1", user: "alice", tool: "reserve_funds", fingerprint: "a".repeat(64),
          decision: "allow" as const, reason: null, policy_version: "pv-1", outcome: "success", outcome_reason: null,
        };
        await store.appendDecision({ ...base, at_ms: T0, tenant: "t1", operation_id: "op-1" });
        await store.appendDecision({ ...base, at_ms: T0 + 1, tenant: "t2", operation_id: "op-1", decision: "deny", reason: "nope", outcome: "terminal_failure", outcome_reason: "policy_denied" });
        await store.appendDecision({ ...base, at_ms: T0 + 2, tenant: "t1", operation_id: null, fingerprint: null, policy_version: null, decision: "not_evaluated", outcome: "terminal_failure", outcome_reason: "unknown_tool" });
        const all = await store.listDecisions();
        expect(all.map((d) => d.at_ms)).toEqual([T0 + 2, T0 + 1, T0]);
        expect(all[1]).toMatchObject({ ...base, at_ms: T0 + 1, tenant: "t2", operation_id: "op-1", decision: "deny", reason: "nope", outcome: "terminal_failure", outcome_reason: "policy_denied" });
        expect((await store.listDecisions({ tenant: "t1" })).map((d) => d.at_ms)).toEqual([T0 + 2, T0]);
        expect((await store.listDecisions({ tenant: "t1", operation_id: "op-1" })).map((d) => d.at_ms)).toEqual([T0]);
        expect(await store.listDecisions({ limit: 1 })).toHaveLength(1);
      });
    });

    describe("the gates' current policy", () => {
      it("is recorded per entrypoint, the last writer wins, and another connection reads it", async () => {
        const { store, openPeer } = await open();
        const ep = "toolgate/authz/decision";
        expect(await store.getCurrentPolicy(ep)).toBeNull();
        const first = { entrypoint: ep, version: "pv-1", code_version: "pc-1", data_version: "pd-1", owner: "gate-a", updated_at_ms: T0 };
        await store.setCurrentPolicy(first);
        expect(await store.getCurrentPolicy(ep)).toEqual(first);
        const second = { ...first, version: "pv-2", code_version: "pc-2", owner: "gate-b", updated_at_ms: T0 + 5 };
        await store.setCurrentPolicy(second);
        await store.setCurrentPolicy({ ...first, entrypoint: "other/decision" });
        expect(await store.getCurrentPolicy(ep)).toEqual(second);
        expect(await store.getCurrentPolicy("other/decision")).toMatchObject({ version: "pv-1", owner: "gate-a" });
        if (openPeer !== undefined) {
          const peer = await openPeer();
          try {
            expect(await peer.getCurrentPolicy(ep)).toEqual(second);
          } finally {
            await peer.close();
          }
        }
      });
    });
  });
}
