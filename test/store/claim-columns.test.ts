/**
 * The SQLite store writes an outcome and a refund with UPDATEs that set only the columns
 * these plans change (so the index over expires_at_ms is left alone): every plan must keep
 * to the columns claim.ts declares.
 */
import { describe, expect, it } from "vitest";
import { planRecord, planRefund, recordChangedColumns, refundChangedColumns } from "../../src/store/claim.js";
import type { OperationRecord } from "../../src/store/store.js";

const T0 = 1_700_000_000_000;
const base: OperationRecord = {
  tenant: "t1",
  operation_id: "op-1",
  tool: "reserve_funds",
  fingerprint: "f".repeat(64),
  status: "in_progress",
  fence_token: 3,
  lease_owner: "w",
  lease_expires_at_ms: T0 + 1_000,
  attempts: 2,
  envelope: null,
  created_at_ms: T0 - 5_000,
  updated_at_ms: T0 - 5_000,
  expires_at_ms: T0 + 60_000,
};

const changed = (before: OperationRecord, after: OperationRecord): string[] =>
  (Object.keys(before) as (keyof OperationRecord)[]).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));

describe("the columns the operation plans change", () => {
  it("planRecord changes only recordChangedColumns", () => {
    const seen = new Set<string>();
    for (const status of ["final", "retryable", "unknown"] as const) {
      for (const keep_lease of [true, false, undefined]) {
        for (const now_ms of [T0, T0 + 2_000]) {
          const plan = planRecord(base, { tenant: "t1", operation_id: "op-1", fence_token: 3, status, envelope: { outcome: "success", n: now_ms }, now_ms, ...(keep_lease === undefined ? {} : { keep_lease }) });
          expect(plan.write).not.toBeNull();
          for (const k of changed(base, plan.write!)) seen.add(k);
        }
      }
    }
    expect([...seen].sort()).toEqual([...recordChangedColumns].sort());
  });

  it("planRefund changes only refundChangedColumns", () => {
    const next = planRefund(base, { tenant: "t1", operation_id: "op-1", fence_token: 3, now_ms: T0 + 10 });
    expect(next).not.toBeNull();
    expect(changed(base, next!).sort()).toEqual([...refundChangedColumns].sort());
  });
});
