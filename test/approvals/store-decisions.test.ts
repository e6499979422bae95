/**
 * Both stores settle and refuse an approval decision exactly as planDecision plans it on the
 * approval as read (src/store/decision-plan.ts), and explain a refused consumption alike.
 */
import { expect, it } from "vitest";
import { planStoreDecision } from "../../src/store/decision-plan.js";
import type { ApprovalEvent, Store } from "../../src/store/store.js";
import { decisionEvent as event, newApproval, T0, TTL } from "./decision-fixtures.js";
import { describeEachStore } from "../helpers/stores.js";

/** The store's answer to `ev`, and the plan's on the approval as read before it. */
async function decideBoth(store: Store, ev: ApprovalEvent, executed: { outcome: null } | null = null) {
  const before = await store.getApproval(ev.approval_id);
  const planned = planStoreDecision(before, ev, ev.decision === "revoke" ? executed : undefined).result;
  const got = await store.decideApproval(ev);
  return { got, planned };
}

describeEachStore("store decisions follow planDecision", (stores) => {
  it("expired, already decided and not found are refused as planned, and nothing is written", async () => {
    const store = await stores.fresh();
    await store.createApproval(newApproval("a1"));
    const expired = await decideBoth(store, event("a1", "approve", T0 + TTL));
    expect(expired.got).toMatchObject({ ok: false, why: "expired" });
    expect(expired.got).toEqual(expired.planned);
    expect((await store.getApproval("a1"))?.status).toBe("pending");
    expect(await store.listApprovalEvents("a1")).toEqual([]);

    const approved = await decideBoth(store, event("a1", "approve"));
    expect(approved.got).toMatchObject({ ok: true, approval: { status: "approved" } });
    expect(approved.got).toEqual(approved.planned);
    for (const d of ["approve", "edit", "reject"] as const) {
      const again = await decideBoth(store, event("a1", d, T0 + 2));
      expect(again.got, d).toMatchObject({ ok: false, why: "already_decided" });
      expect(again.got, d).toEqual(again.planned);
    }
    expect((await store.listApprovalEvents("a1")).map((e) => e.decision)).toEqual(["approve"]);

    const missing = await decideBoth(store, event("nope", "approve"));
    expect(missing.got).toEqual({ ok: false, why: "not_found", approval: null });
    expect(missing.got).toEqual(missing.planned);
  });

  it("each decision kind leaves the status of the status map, read back from the store", async () => {
    const store = await stores.fresh();
    const cases = [["approve", "approved"], ["edit", "edited"], ["reject", "rejected"], ["revoke", "revoked"]] as const;
    for (const [d, status] of cases) {
      await store.createApproval(newApproval(`s-${d}`));
      const out = await decideBoth(store, event(`s-${d}`, d));
      expect(out.got, d).toEqual(out.planned);
      expect((await store.getApproval(`s-${d}`))?.status, d).toBe(status);
    }
    // Revoking a given approval that no call used withdraws it.
    const out = await decideBoth(store, event("s-approve", "revoke", T0 + 3));
    expect(out.got).toMatchObject({ ok: true, approval: { status: "revoked" } });
    expect(out.got).toEqual(out.planned);
  });

  it("a revoke after the approval was consumed is already_executed as planned; a refused consumption is explained alike", async () => {
    const store = await stores.fresh();
    await store.createApproval(newApproval("c1"));
    await store.decideApproval(event("c1", "approve"));
    const consume = { approval_id: "c1", tenant: "t1", operation_id: "op-c1", now_ms: T0 + 2 };
    expect(await store.consumeApproval({ ...consume, tenant: "t2" })).toEqual({ ok: false, why: "not_approved" });
    // Only the approval's own operation consumes it.
    expect(await store.consumeApproval({ ...consume, operation_id: "op-other" })).toEqual({ ok: false, why: "not_approved" });
    expect(await store.consumeApproval(consume)).toEqual({ ok: true });
    // The consuming operation again: recording is idempotent; any other is too late.
    expect(await store.consumeApproval(consume)).toEqual({ ok: true });
    expect(await store.consumeApproval({ ...consume, operation_id: "op-other" })).toEqual({ ok: false, why: "already_consumed" });

    const revoked = await decideBoth(store, event("c1", "revoke", T0 + 3), { outcome: null });
    expect(revoked.got).toMatchObject({ ok: false, why: "already_executed", outcome: null });
    expect(revoked.got).toEqual(revoked.planned);
    expect((await store.getApproval("c1"))?.status).toBe("approved");
  });
});
