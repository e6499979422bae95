/** list() and get() of the approvals API: filters, the cursor, and typed errors for every bad request. */
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../src/approvals/cursor.js";
import { isApprovalsError } from "../../src/approvals/index.js";
import { getApprovalDetail } from "../../src/approvals/get.js";
import { listApprovals } from "../../src/approvals/list.js";
import { openSqliteStore } from "../../src/store/index.js";
import type { NewApproval, Store } from "../../src/store/store.js";
import { newApproval } from "./decision-fixtures.js";

const T0 = 1_700_000_000_000;
const approval = (id: string, at: number, over: Partial<NewApproval> = {}): NewApproval => ({ ...newApproval(id), created_at_ms: at, expires_at_ms: at + 60_000, ...over });

async function seeded(): Promise<Store> {
  const store = openSqliteStore(":memory:");
  for (let i = 0; i < 5; i++) await store.createApproval(approval(`a${i}`, T0 + i * 1_000, i === 4 ? { tool: "confirm_transfer" } : {}));
  return store;
}

const code = async (p: Promise<unknown>): Promise<string> => {
  const err = await p.then(() => null, (e: unknown) => e);
  return isApprovalsError(err) ? err.code : `not an ApprovalsError: ${String(err)}`;
};

describe("approvals list", () => {
  it("pages newest first until next_cursor is null", async () => {
    const store = await seeded();
    const p1 = await listApprovals(store, { tenant: "t1", limit: 2 });
    expect(p1.approvals.map((a) => a.id)).toEqual(["a4", "a3"]);
    const p2 = await listApprovals(store, { tenant: "t1", limit: 2, cursor: p1.next_cursor! });
    const p3 = await listApprovals(store, { tenant: "t1", limit: 2, cursor: p2.next_cursor! });
    expect([...p2.approvals, ...p3.approvals].map((a) => a.id)).toEqual(["a2", "a1", "a0"]);
    expect(p3.next_cursor).toBeNull();
    // A page exactly at the end has no next cursor either.
    expect((await listApprovals(store, { tenant: "t1", limit: 5 })).next_cursor).toBeNull();
  });

  it("filters by tool and creation time (epoch ms or a Date)", async () => {
    const store = await seeded();
    expect((await listApprovals(store, { tenant: "t1", tool: "confirm_transfer" })).approvals.map((a) => a.id)).toEqual(["a4"]);
    expect((await listApprovals(store, { tenant: "t1", older_than: T0 + 2_000 })).approvals.map((a) => a.id)).toEqual(["a1", "a0"]);
    expect((await listApprovals(store, { tenant: "t1", older_than: new Date(T0 + 1_000) })).approvals.map((a) => a.id)).toEqual(["a0"]);
  });

  it("every bad request is a typed ApprovalsError naming the field", async () => {
    const store = await seeded();
    expect(await code(listApprovals(store, { tenant: "" }))).toBe("invalid_request");
    expect(await code(listApprovals(store, { tenant: "t1", limit: 0 }))).toBe("invalid_request");
    expect(await code(listApprovals(store, { tenant: "t1", limit: 201 }))).toBe("invalid_request");
    expect(await code(listApprovals(store, { tenant: "t1", limit: 1.5 }))).toBe("invalid_request");
    expect(await code(listApprovals(store, { tenant: "t1", status: "maybe" as never }))).toBe("invalid_request");
    expect(await code(listApprovals(store, { tenant: "t1", older_than: Number.NaN }))).toBe("invalid_request");
    for (const cursor of ["", "!!", "a".repeat(700), Buffer.from("[1]").toString("base64url"), Buffer.from('["x","y"]').toString("base64url")]) {
      expect(await code(listApprovals(store, { tenant: "t1", cursor }))).toBe("invalid_cursor");
    }
  });

  it("a cursor round-trips and decodes only what encode produced", () => {
    const c = encodeCursor({ created_at_ms: T0, id: "apr_1" });
    expect(decodeCursor(c)).toEqual({ created_at_ms: T0, id: "apr_1" });
  });
});

describe("approvals get", () => {
  it("returns events, the stored call's policy reason and expiry state; null for unknown or hostile ids", async () => {
    const store = await seeded();
    await store.savePendingCall({ approval_id: "a0", tenant: "t1", run_id: "r", user: "alice", roles: ["agent"], tool: "reserve_funds", args: { amount: 1 }, operation_id: "op-a0", policy_reason: "big_amount", created_at_ms: T0 });
    const d = await getApprovalDetail(store, "a0", T0 + 120_000);
    expect(d).toMatchObject({ id: "a0", policy_reason: "big_amount", expired: true, events: [], pending_call: { user: "alice", roles: ["agent"] } });
    expect(await getApprovalDetail(store, "a1", T0)).toMatchObject({ policy_reason: null, pending_call: null, expired: false });
    expect(await getApprovalDetail(store, "nope", T0)).toBeNull();
    expect(await getApprovalDetail(store, "x".repeat(1_000), T0)).toBeNull();
  });
});
