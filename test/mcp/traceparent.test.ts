/** The MCP request's `_meta.traceparent` reaches the gate: the call's span is a child of the agent's. */
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers } from "../../src/demo/escrow.js";
import { createMcpServer } from "../../src/mcp/index.js";
import { createRuntime } from "../../src/runtime/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { alice, loadPolicy } from "./fixture.js";

describe("MCP trace context", () => {
  it("passes _meta.traceparent to runtime.call: the execute_tool span has the agent's trace id and parent span", async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
    const store = openSqliteStore(":memory:");
    const runtime = createRuntime({ manifest, validators, handlers: escrowHandlers(new EscrowLedger()), policy: await loadPolicy(), store, telemetry: { tracer }, onError: () => undefined });
    const server = createMcpServer(runtime, { principal: alice });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(clientSide);
    try {
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
      const parent = "00f067aa0ba902b7";
      const result = await client.callTool({ name: "get_account", arguments: { account_id: "acc_alice" }, _meta: { traceparent: `00-${traceId}-${parent}-01` } });
      expect(result.isError).not.toBe(true);
      const span = exporter.getFinishedSpans().find((s) => s.name === "execute_tool get_account");
      expect(span?.spanContext().traceId).toBe(traceId);
      expect(span?.parentSpanContext?.spanId).toBe(parent);
    } finally {
      await client.close();
      await store.close();
    }
  });
});
