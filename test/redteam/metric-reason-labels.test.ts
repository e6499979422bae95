/**
 * Metric labels stay bounded when the policy's reason carries model-controlled text: a reason
 * the policy builds from the call's arguments cannot mint one `toolgate.decisions` series per
 * call (spans keep the exact reason).
 */
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { describe, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../../src/demo/escrow.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { createRuntime } from "../../src/runtime/index.js";
import { MAX_REASON_LABELS, OTHER_REASON } from "../../src/runtime/telemetry.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { manualClock } from "../../src/testing/index.js";
import { alice } from "../runtime/harness.js";

class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** A policy that allows reads and names the argument in its reason (as `sprintf` in Rego would). */
const echoingPolicy: PolicyEngine = {
  version: "echo-1",
  evaluate: async (input) => ({ allow: true, reason: `read_allowed_for_${String(input.args["account_id"])}`, requires_approval: false }),
};

describe("telemetry reason labels", () => {
  it("a policy reason built from model-controlled arguments mints at most a bounded number of metric series", async () => {
    const reader = new TestReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter("test");
    const store = openSqliteStore(":memory:");
    const calls = MAX_REASON_LABELS * 3;
    const ledger = new EscrowLedger(Array.from({ length: calls }, (_, i) => ({ account_id: `acc_model${i}`, balance: 1, currency: "EUR" as const, status: "open" as const })));
    const runtime = createRuntime({
      manifest,
      validators,
      handlers: escrowHandlers(ledger),
      reconcilers: escrowReconcilers(ledger),
      policy: echoingPolicy,
      store,
      clock: manualClock(),
      onError: () => undefined,
      telemetry: { meter },
    });
    try {
      for (let i = 0; i < calls; i++) {
        expect((await runtime.call(alice, { tool: "get_account", args: { account_id: `acc_model${i}` } })).outcome).toBe("success");
      }
      const { resourceMetrics } = await reader.collect();
      const decisions = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === "toolgate.decisions");
      expect(decisions).toBeDefined();
      const reasons = new Set(decisions!.dataPoints.map((p) => p.attributes["toolgate.reason"]));
      expect(reasons.size).toBeLessThanOrEqual(MAX_REASON_LABELS + 1);
      expect(reasons.has(OTHER_REASON)).toBe(true);
      expect(reasons.has("read_allowed_for_acc_model0")).toBe(true);
      const total = decisions!.dataPoints.reduce((n, p) => n + (typeof p.value === "number" ? p.value : 0), 0);
      expect(total).toBe(calls);
    } finally {
      await store.close();
    }
  });
});
