/**
 * The approvals-inbox part of the Store contract: listing with filters and keyset
 * pagination, pending calls, edit links and webhook announcements. Every backend
 * runs it (test/store/inbox-*.test.ts); `makeStore` returns an empty, isolated store.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalEvent, NewApproval, NewPendingCall, Store } from "../../src/store/store.js";

const T0 = 1_700_000_000_000;

const approval = (id: string, over: Partial<NewApproval> = {}): NewApproval => ({
  id,
  tenant: "t1",
  run_id: "run-1",
  requested_by: "alice",
  tool: "reserve_funds",
  args: { account_id: "acc_1", amount: 10, currency: "EUR", recipient: "acc_2" },
  preview: { account_id: "acc_1", amount: 10 },
  fingerprint: `fp-${id}`,
  args_hash: `ah-${id}`,
  operation_id: `op-${id}`,
  created_at_ms: T0,
  expires_at_ms: T0 + 900_000,
  policy_version: "pv-1",
  policy_code_version: "pc-1",
  policy_data_version: "pd-1",
  ...over,
});

const decision = (approval_id: string, decision: ApprovalEvent["decision"], approver: string, reason: string | null, at: number): ApprovalEvent => ({
  approval_id,
  decision,
  approver,
  approver_roles: ["approver"],
  reason,
  edited_args: null,
  decided_at_ms: at,
  policy_version: "pv-1",
  policy_code_version: "pc-1",
  policy_data_version: "pd-1",
});

const pendingCall = (approvalId: string, over: Partial<NewPendingCall> = {}): NewPendingCall => ({
  approval_id: approvalId,
  tenant: "t1",
  run_id: "run-1",
  user: "alice",
  roles: ["agent", "ops"],
  tool: "reserve_funds",
  args: { account_id: "acc_1", amount: 10, currency: "EUR", recipient: "acc_2" },
  operation_id: `op-${approvalId}`,
  policy_reason: "approval_required",
  created_at_ms: T0,
  ...over,
});

export function runInboxStoreContract(name: string, makeStore: () => Promise<{ store: Store; dispose?: () => Promise<void> }>): void {
  describe(`Store inbox contract: ${name}`, () => {
    let current: { store: Store; dispose?: () => Promise<void> } | null = null;
    const open = async (): Promise<Store> => (current = await makeStore()).store;
    afterEach(async () => {
      await current?.store.close();
      await current?.dispose?.();
      current = null;
    });

    it("lists one tenant's approvals newest first, with the latest decision", async () => {
      const store = await open();
      await store.createApproval(approval("a1", { created_at_ms: T0 }));
      await store.createApproval(approval("a2", { created_at_ms: T0 + 10 }));
      await store.createApproval(approval("b1", { tenant: "t2", created_at_ms: T0 + 20 }));
      await store.decideApproval(decision("a1", "reject", "bob", "no", T0 + 30));
      const rows = await store.listApprovals({ tenant: "t1", limit: 10 });
      expect(rows.map((r) => r.id)).toEqual(["a2", "a1"]);
      expect(rows[1]).toMatchObject({ status: "rejected", decision: { approver: "bob", reason: "no", decision: "reject" } });
      expect(rows[0]).toMatchObject({ status: "pending", decision: null, args: approval("a2").args });
    });

    it("filters by tool, status, requester and creation time", async () => {
      const store = await open();
      await store.createApproval(approval("a1", { tool: "confirm_transfer", created_at_ms: T0 }));
      await store.createApproval(approval("a2", { requested_by: "carol", created_at_ms: T0 + 10 }));
      await store.createApproval(approval("a3", { created_at_ms: T0 + 20 }));
      await store.decideApproval(decision("a3", "approve", "bob", null, T0 + 30));
      const ids = async (q: Partial<Parameters<Store["listApprovals"]>[0]>) => (await store.listApprovals({ tenant: "t1", limit: 10, ...q })).map((r) => r.id);
      expect(await ids({ tool: "confirm_transfer" })).toEqual(["a1"]);
      expect(await ids({ status: "pending" })).toEqual(["a2", "a1"]);
      expect(await ids({ status: "approved" })).toEqual(["a3"]);
      expect(await ids({ requested_by: "carol" })).toEqual(["a2"]);
      expect(await ids({ created_before_ms: T0 + 20 })).toEqual(["a2", "a1"]);
      expect(await ids({ tool: "reserve_funds", status: "pending", requested_by: "alice" })).toEqual([]);
    });

    it("pages with a keyset cursor: no row is skipped or repeated, ties broken by id", async () => {
      const store = await open();
      // Three share a creation time: the cursor must still order them.
      const times = [T0, T0, T0, T0 + 5, T0 + 9, T0 + 9, T0 + 12];
      for (const [i, t] of times.entries()) await store.createApproval(approval(`a${i}`, { created_at_ms: t }));
      const seen: string[] = [];
      let after: { created_at_ms: number; id: string } | undefined;
      for (let page = 0; page < 10; page++) {
        const rows = await store.listApprovals({ tenant: "t1", limit: 2, ...(after === undefined ? {} : { after }) });
        if (rows.length === 0) break;
        seen.push(...rows.map((r) => r.id));
        const last = rows.at(-1)!;
        after = { created_at_ms: last.created_at_ms, id: last.id };
      }
      expect(seen).toEqual(["a6", "a5", "a4", "a3", "a2", "a1", "a0"]);
    });

    it("stores a pending call once, with its trusted context, arguments and policy reason", async () => {
      const store = await open();
      await store.createApproval(approval("a1"));
      expect(await store.savePendingCall(pendingCall("a1"))).toBe(true);
      expect(await store.savePendingCall(pendingCall("a1", { user: "mallory", roles: ["admin"] }))).toBe(false);
      expect(await store.getPendingCall("a1")).toEqual({ ...pendingCall("a1"), replaced_by: null, announced_at_ms: null });
      expect(await store.getPendingCall("missing")).toBeNull();
    });

    it("an edit links the original pending call to the edited call's approval", async () => {
      const store = await open();
      await store.createApproval(approval("a1"));
      await store.savePendingCall(pendingCall("a1"));
      await store.createApproval(approval("a2", { args: { amount: 5 } }));
      await store.replacePendingCall("a1", pendingCall("a2", { args: { amount: 5 }, operation_id: "op-new" }));
      expect(await store.getPendingCall("a1")).toMatchObject({ replaced_by: "a2" });
      expect(await store.getPendingCall("a2")).toMatchObject({ args: { amount: 5 }, operation_id: "op-new", user: "alice", roles: ["agent", "ops"], replaced_by: null });
    });

    it("announcements: each pending approval is claimed once, oldest first; decided ones are skipped; unmark retries", async () => {
      const store = await open();
      for (const [i, id] of ["a1", "a2", "a3"].entries()) {
        await store.createApproval(approval(id, { created_at_ms: T0 + i }));
        await store.savePendingCall(pendingCall(id, { created_at_ms: T0 + i }));
      }
      await store.decideApproval(decision("a2", "reject", "bob", null, T0 + 5));
      const first = await store.claimAnnouncements(T0 + 100, 10);
      expect(first.map((c) => c.approval_id)).toEqual(["a1", "a3"]);
      expect(first[0]).toMatchObject({ announced_at_ms: T0 + 100 });
      expect(await store.claimAnnouncements(T0 + 200, 10)).toEqual([]);
      await store.unmarkAnnouncement("a3");
      expect((await store.claimAnnouncements(T0 + 300, 10)).map((c) => c.approval_id)).toEqual(["a3"]);
    });

    it("purging an approval that expired undecided removes its pending call too", async () => {
      const store = await open();
      await store.createApproval(approval("a1", { expires_at_ms: T0 + 10 }));
      await store.savePendingCall(pendingCall("a1"));
      await store.purgeExpired(T0 + 1_000);
      expect(await store.getApproval("a1")).toBeNull();
      expect(await store.getPendingCall("a1")).toBeNull();
    });

    it("concurrent announcement claims never hand out one approval twice", async () => {
      const store = await open();
      for (let i = 0; i < 20; i++) {
        await store.createApproval(approval(`a${i}`, { created_at_ms: T0 + i }));
        await store.savePendingCall(pendingCall(`a${i}`, { created_at_ms: T0 + i }));
      }
      const batches = await Promise.all(Array.from({ length: 8 }, () => store.claimAnnouncements(T0 + 100, 5)));
      const ids = batches.flat().map((c) => c.approval_id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(20);
    });
  });
}
