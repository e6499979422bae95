/** The demo's scenarios, checked step by step with the real compiled policy. */
import { describe, expect, it } from "vitest";
import { runDemo } from "../../src/demo/scenarios.js";
import { openSqliteStore } from "../../src/store/index.js";
import { loadShippedPolicy } from "./harness.js";

describe("toolgate demo scenarios", () => {
  it("prints the envelope of every demo scenario with the expected outcome", async () => {
    const store = openSqliteStore(":memory:");
    const steps = await runDemo(await loadShippedPolicy(), store, () => undefined);
    const by = (prefix: string) => steps.find((s) => s.title.startsWith(prefix))?.envelope;
    expect(by("1.")).toMatchObject({ outcome: "success" });
    expect(by("2.")).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
    expect(by("3.")).toMatchObject({ outcome: "success", replayed: false });
    expect(by("4.")).toMatchObject({ outcome: "success", replayed: true });
    expect(by("5.")).toMatchObject({ reason: "idempotency_conflict" });
    expect(by("6.")).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("approval_fingerprint_mismatch") });
    expect(by("7a.")).toMatchObject({ outcome: "terminal_failure", reason: "destructive_denied" });
    expect(by("7b.")).toMatchObject({ outcome: "terminal_failure", reason: "destructive_denied" });
    expect(by("8a.")).toMatchObject({ outcome: "retryable_failure", reason: "timeout" });
    expect(by("8b.")).toMatchObject({ outcome: "success" });
    expect(steps.find((s) => s.title.startsWith("8b."))?.note).toBe("effects in the ledger for op-timeout: 1");
    expect(by("9a.")).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error", retry_after_ms: 500, message: expect.stringMatching(/^get_account failed with ECONNRESET \(error e_[0-9a-f]{32}\); the operator can look it up$/) });
    expect(JSON.stringify(by("9a."))).not.toContain("ledger-db.internal");
    expect(steps.find((s) => s.title.startsWith("9a."))?.note).toBe("decision log (toolgate log --error): ECONNRESET: read ECONNRESET ledger-db.internal:5432");
    expect(by("9b.")).toMatchObject({ outcome: "success", value: { account_id: "acc_bob" } });
    expect(by("10.")).toMatchObject({ outcome: "terminal_failure", reason: "limit_exceeded", limit: { name: "payouts_per_currency", sum: 0, max_sum: 10_000 } });
    expect(steps.find((s) => s.title.startsWith("10."))?.note).toBe("effects in the ledger for op-payout: 0");
    await store.close();
  });
});
