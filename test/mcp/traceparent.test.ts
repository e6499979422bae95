/**
 * MCP tool calls and OpenTelemetry: the request's `_meta.traceparent` reaches the gate (the
 * call's span is a child of the agent's), and the span's `gen_ai.tool.call.id` is the MCP
 * request id while the operation id stays `toolgate.operation_id`.
 */
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers } from "../../src/demo/escrow.js";
import { createMcpServer } from "../../src/mcp/index.js";
import { createRuntime } from "../../src/runtime/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { alice, loadPolicy, reserveArgs } from "./fixture.js";

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(() => {
  contextManager.disable();
  context.disable();
});

/** A connected client and server over an in-memory pair; `sentIds` are the JSON-RPC ids of the client's tools/call requests. */
async function connected() {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
  const store = openSqliteStore(":memory:");
  const runtime = createRuntime({ manifest, validators, handlers: escrowHandlers(new EscrowLedger()), policy: await loadPolicy(), store, telemetry: { tracer }, onError: () => undefined });
  const server = createMcpServer(runtime, { principal: alice });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sentIds: Array<string | number> = [];
  const send = clientSide.send.bind(clientSide);
  clientSide.send = async (message, options) => {
    if ("method" in message && message.method === "tools/call" && "id" in message) sentIds.push(message.id);
    return send(message, options);
  };
  await server.connect(serverSide);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(clientSide);
  return {
    exporter,
    client,
    sentIds,
    async close() {
      await client.close();
      await store.close();
    },
  };
}

describe("MCP trace context", () => {
  it("passes _meta.traceparent to runtime.call: the execute_tool span has the agent's trace id and parent span", async () => {
    const { exporter, client, close } = await connected();
    try {
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
      const parent = "00f067aa0ba902b7";
      const result = await client.callTool({ name: "get_account", arguments: { account_id: "acc_alice" }, _meta: { traceparent: `00-${traceId}-${parent}-01` } });
      expect(result.isError).not.toBe(true);
      const span = exporter.getFinishedSpans().find((s) => s.name === "execute_tool get_account");
      expect(span?.spanContext().traceId).toBe(traceId);
      expect(span?.parentSpanContext?.spanId).toBe(parent);
    } finally {
      await close();
    }
  });

  it("gen_ai.tool.call.id is the MCP request's JSON-RPC id (as a string) and the operation id stays toolgate.operation_id", async () => {
    const { exporter, client, sentIds, close } = await connected();
    try {
      await client.callTool({ name: "get_account", arguments: { account_id: "acc_alice" } });
      await client.callTool({ name: "reserve_funds", arguments: { ...reserveArgs, operation_id: "op-span-1" } });
      expect(sentIds).toHaveLength(2);
      const [readId, writeId] = sentIds;
      expect(readId).not.toBe(writeId);
      const read = exporter.getFinishedSpans().find((s) => s.name === "execute_tool get_account");
      const write = exporter.getFinishedSpans().find((s) => s.name === "execute_tool reserve_funds");
      expect(read?.attributes["gen_ai.tool.call.id"]).toBe(String(readId));
      expect(write?.attributes).toMatchObject({ "gen_ai.tool.call.id": String(writeId), "toolgate.operation_id": "op-span-1" });
    } finally {
      await close();
    }
  });
});
