/**
 * Metric labels are bounded by the catalog: tool names the model invents collapse to one
 * label value (`_unknown`) in the metrics and in the call span's name and tool attribute.
 */
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../../src/demo/escrow.js";
import { createRuntime } from "../../src/runtime/index.js";
import { UNKNOWN_TOOL } from "../../src/runtime/telemetry.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { manualClock } from "../../src/testing/index.js";
import { alice, loadShippedPolicy } from "./harness.js";

class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

describe("telemetry label cardinality", () => {
  it("tool names outside the catalog collapse to one label value in metrics and span names, however many the model sends", async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
    const reader = new TestReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter("test");
    const store = openSqliteStore(":memory:");
    const ledger = new EscrowLedger();
    const runtime = createRuntime({
      manifest,
      validators,
      handlers: escrowHandlers(ledger),
      reconcilers: escrowReconcilers(ledger),
      policy: await loadShippedPolicy(),
      store,
      clock: manualClock(),
      onError: () => undefined,
      telemetry: { tracer, meter },
    });
    try {
      for (let i = 0; i < 300; i++) {
        const env = await runtime.call(alice, { tool: `invented_tool_${i}`, args: {} });
        expect(env.outcome).toBe("terminal_failure");
      }
      await runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
      const { resourceMetrics } = await reader.collect();
      const metrics = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
      const toolLabels = new Set<unknown>();
      for (const m of metrics) for (const p of m.dataPoints) if ("gen_ai.tool.name" in p.attributes) toolLabels.add(p.attributes["gen_ai.tool.name"]);
      expect([...toolLabels].sort()).toEqual([UNKNOWN_TOOL, "get_account"].sort());
      const callSpans = exporter.getFinishedSpans().filter((s) => s.name.startsWith("execute_tool "));
      expect(new Set(callSpans.map((s) => s.name))).toEqual(new Set([`execute_tool ${UNKNOWN_TOOL}`, "execute_tool get_account"]));
      expect(new Set(callSpans.map((s) => s.attributes["gen_ai.tool.name"]))).toEqual(new Set([UNKNOWN_TOOL, "get_account"]));
    } finally {
      await store.close();
    }
  });
});
