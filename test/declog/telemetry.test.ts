/**
 * OpenTelemetry through the API only, observed with the SDK's in-memory exporter:
 * one `execute_tool {tool}` span per call (GenAI semantic conventions) with child
 * spans prepare / authorize / invoke, the caller's W3C traceparent as parent,
 * handler spans nested under invoke, and the decision, phase and pending-approval metrics.
 */
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import type { DataPoint, Histogram } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../../src/demo/escrow.js";
import { createRuntime, parseTraceparent } from "../../src/runtime/index.js";
import { withToolCallId } from "../../src/runtime/telemetry.js";
import { gatedCalls } from "../../src/adapters/gated-calls.js";
import type { Runtime } from "../../src/runtime/index.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import { manualClock } from "../../src/testing/index.js";
import { alice, bob, loadGeneratedPolicy, reserve } from "./harness.js";

class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN = "00f067aa0ba902b7";
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(() => {
  contextManager.disable();
  context.disable();
});

let exporter: InMemorySpanExporter;
let reader: TestReader;
let store: Store;
let runtime: Runtime;
let tracer: Tracer;
let policyVersion: string;

beforeEach(async () => {
  exporter = new InMemorySpanExporter();
  tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
  reader = new TestReader();
  const meter = new MeterProvider({ readers: [reader] }).getMeter("test");
  store = openSqliteStore(":memory:");
  const ledger = new EscrowLedger();
  const base = escrowHandlers(ledger);
  const policy = await loadGeneratedPolicy();
  policyVersion = policy.version;
  runtime = createRuntime({
    // list_transactions' account_id is sensitive here, and its handler throws an error naming it.
    manifest: { ...manifest, tools: { ...manifest.tools, list_transactions: { ...manifest.tools.list_transactions!, sensitive: ["account_id"] } } },
    validators,
    handlers: {
      ...base,
      list_transactions: async ({ account_id }: Parameters<typeof base.list_transactions>[0]) => {
        throw new Error(`no ledger shard holds ${account_id} (shard-7.internal)`);
      },
      // A handler's own span must nest under the invoke span.
      get_account: (args: Parameters<typeof base.get_account>[0], ctx: Parameters<typeof base.get_account>[1]) => tracer.startActiveSpan("ledger.read", async (span) => {
        try {
          return await base.get_account(args, ctx);
        } finally {
          span.end();
        }
      }),
    },
    reconcilers: escrowReconcilers(ledger),
    policy,
    store,
    clock: manualClock(),
    onError: () => undefined,
    telemetry: { tracer, meter },
  });
});

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const named = (name: string): ReadableSpan => {
  const s = spans().find((x) => x.name === name);
  if (s === undefined) throw new Error(`no span ${name}; have ${spans().map((x) => x.name).join(", ")}`);
  return s;
};

describe("spans", () => {
  it("a call is one execute_tool span under the caller's traceparent, with prepare/authorize/invoke children and the handler's span under invoke", async () => {
    await runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } }, { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` });
    const root = named("execute_tool get_account");
    expect(root.kind).toBe(SpanKind.INTERNAL);
    expect(root.spanContext().traceId).toBe(TRACE_ID);
    expect(root.parentSpanContext?.spanId).toBe(PARENT_SPAN);
    const [decision] = await store.listDecisions();
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "get_account",
      "gen_ai.tool.type": "function",
      "toolgate.tool.effect": "read",
      "toolgate.decision": "allow",
      "toolgate.reason": "read_allowed",
      "toolgate.outcome": "success",
      "toolgate.policy.version": policyVersion,
      "toolgate.decision_id": decision!.decision_id,
    });
    expect(root.attributes["toolgate.policy.eval_ns"]).toBe(decision!.eval_ns);
    expect(root.attributes).not.toHaveProperty("error.type");
    expect(root.status.code).not.toBe(SpanStatusCode.ERROR);
    const children = spans().filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId);
    expect(children.map((s) => s.name)).toEqual(["prepare", "authorize", "invoke"]);
    for (const c of children) expect(c.spanContext().traceId).toBe(TRACE_ID);
    expect(named("ledger.read").parentSpanContext?.spanId).toBe(named("invoke").spanContext().spanId);
    expect(spans()).toHaveLength(5);
  });

  it("a denied write: error status, error.type, the policy's reason and the operation id; no invoke span", async () => {
    await runtime.call(alice, { tool: "close_account", args: { account_id: "acc_alice" }, operation_id: "op-close" });
    const root = named("execute_tool close_account");
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.attributes).toMatchObject({
      "error.type": "destructive_denied",
      "toolgate.outcome_reason": "destructive_denied",
      "toolgate.reason": "destructive_denied",
      "toolgate.decision": "deny",
      "toolgate.tool.effect": "destructive",
      "toolgate.operation_id": "op-close",
    });
    // gen_ai.tool.call.id is the framework's or protocol's call id, never toolgate's operation id.
    expect(root.attributes).not.toHaveProperty("gen_ai.tool.call.id");
    expect(spans().filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId).map((s) => s.name)).toEqual(["prepare", "authorize"]);
  });

  it("a thrown handler error is an exception event on the call span with the error id the model got, its text erased of sensitive values", async () => {
    const env = await runtime.call(alice, { tool: "list_transactions", args: { account_id: "acc_alice" } });
    expect(env).toMatchObject({ outcome: "retryable_failure", reason: "retryable_error" });
    const errorId = /\(error (e_[0-9a-f]{32})\)/.exec(env.outcome === "success" ? "" : env.message)?.[1];
    expect(errorId).toBeDefined();
    const root = named("execute_tool list_transactions");
    expect(root.attributes).toMatchObject({ "toolgate.error_id": errorId, "toolgate.error.treated_as": "retryable", "error.type": "retryable_error" });
    const exception = root.events.find((e) => e.name === "exception");
    expect(exception?.attributes).toMatchObject({ "exception.type": "Error", "exception.message": "no ledger shard holds [erased:account_id] (shard-7.internal)" });
    expect(String(exception?.attributes?.["exception.stacktrace"])).toContain("no ledger shard holds [erased:account_id]");
    expect(JSON.stringify(root.events)).not.toContain("acc_alice");
  });

  it("gen_ai.tool.call.id is the framework's tool-call id, and the operation id is toolgate.operation_id", async () => {
    await withToolCallId("call_abc123", () => runtime.call(alice, { tool: "close_account", args: { account_id: "acc_alice" }, operation_id: "op-close-2" }));
    const root = named("execute_tool close_account");
    expect(root.attributes).toMatchObject({ "gen_ai.tool.call.id": "call_abc123", "toolgate.operation_id": "op-close-2" });
  });

  it("an adapter's execution carries the framework's tool-call id as gen_ai.tool.call.id", async () => {
    const gate = gatedCalls(runtime, { context: alice });
    await gate.call(manifest.tools["get_account"]!, { account_id: "acc_alice" }, "toolu_01framework");
    expect(named("execute_tool get_account").attributes["gen_ai.tool.call.id"]).toBe("toolu_01framework");
  });

  it("an approval pause is not an error: no error status and no error.type", async () => {
    const env = await runtime.call(alice, { tool: "reserve_funds", args: reserve(1_000), operation_id: "op-pause" });
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
    const root = named("execute_tool reserve_funds");
    expect(root.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(root.attributes).not.toHaveProperty("error.type");
    expect(root.attributes["toolgate.outcome_reason"]).toBe("approval_required");
  });

  it("without a traceparent the span joins the active context; a malformed one is ignored and flagged", async () => {
    await tracer.startActiveSpan("agent.step", async (outer) => {
      await runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
      outer.end();
    });
    expect(named("execute_tool get_account").parentSpanContext?.spanId).toBe(named("agent.step").spanContext().spanId);
    exporter.reset();
    await runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } }, { traceparent: "00-zzzz-not-a-trace" });
    const root = named("execute_tool get_account");
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes["toolgate.traceparent_invalid"]).toBe(true);
  });

  it("traceparent parsing follows W3C trace context and rejects what it forbids", () => {
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_SPAN}-01`)).toEqual({ traceId: TRACE_ID, spanId: PARENT_SPAN, traceFlags: 1, isRemote: true });
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_SPAN}-00`)?.traceFlags).toBe(0);
    for (const bad of [
      `ff-${TRACE_ID}-${PARENT_SPAN}-01`,
      `00-${"0".repeat(32)}-${PARENT_SPAN}-01`,
      `00-${TRACE_ID}-${"0".repeat(16)}-01`,
      `00-${TRACE_ID}-${PARENT_SPAN}-01-extra`,
      `00-${TRACE_ID.slice(1)}-${PARENT_SPAN}-01`,
      "",
      42,
      "x".repeat(10_000),
    ]) {
      expect(parseTraceparent(bad)).toBeNull();
    }
    // A later version may append fields.
    expect(parseTraceparent(`01-${TRACE_ID}-${PARENT_SPAN}-01-more`)?.traceId).toBe(TRACE_ID);
  });

  it("with no SDK installed the global API is a no-op and calls still answer", async () => {
    const quiet = createRuntime({ manifest, validators, handlers: escrowHandlers(new EscrowLedger()), policy: await loadGeneratedPolicy(), store, onError: () => undefined });
    expect(trace.getTracer("x").startSpan("y").isRecording()).toBe(false);
    expect((await quiet.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } }, { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` })).outcome).toBe("success");
  });
});

describe("metrics", () => {
  const collect = async () => {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  };
  const metric = async (name: string) => {
    const m = (await collect()).find((x) => x.descriptor.name === name);
    if (m === undefined) throw new Error(`no metric ${name}`);
    return m;
  };

  it("decisions are counted by decision, outcome and reason; phases and policy evaluation are histograms", async () => {
    await runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    await runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    await runtime.call(alice, { tool: "close_account", args: { account_id: "acc_alice" }, operation_id: "op-x" });
    await runtime.call(alice, { tool: "get_account", args: { account_id: 7 } });
    const decisions = (await metric("toolgate.decisions")).dataPoints.map((p) => [p.attributes, p.value]);
    expect(decisions).toEqual(
      expect.arrayContaining([
        [{ "gen_ai.tool.name": "get_account", "toolgate.decision": "allow", "toolgate.outcome": "success", "toolgate.reason": "read_allowed" }, 2],
        [{ "gen_ai.tool.name": "close_account", "toolgate.decision": "deny", "toolgate.outcome": "terminal_failure", "toolgate.reason": "destructive_denied" }, 1],
        [{ "gen_ai.tool.name": "get_account", "toolgate.decision": "not_evaluated", "toolgate.outcome": "terminal_failure", "toolgate.reason": "invalid_arguments" }, 1],
      ]),
    );
    expect(decisions).toHaveLength(3);
    const phases = (await metric("toolgate.phase.duration")).dataPoints as DataPoint<Histogram>[];
    const count = (phase: string) => phases.find((p) => p.attributes["toolgate.phase"] === phase)?.value.count;
    expect([count("prepare"), count("authorize"), count("invoke")]).toEqual([4, 3, 2]);
    const evals = (await metric("toolgate.policy.evaluation.duration")).dataPoints as DataPoint<Histogram>[];
    expect(evals[0]!.value.count).toBe(3);
    expect((await metric("toolgate.phase.duration")).descriptor.unit).toBe("s");
  });

  it("pending approvals go up when an approval is requested (once per approval) and down when it is decided", async () => {
    const pendingNow = async () => ((await metric("toolgate.approvals.pending")).dataPoints as DataPoint<number>[]).reduce((n, p) => n + p.value, 0);
    const ask = await runtime.call(alice, { tool: "reserve_funds", args: reserve(10), operation_id: "op-p" });
    await runtime.call(alice, { tool: "reserve_funds", args: reserve(10), operation_id: "op-p" });
    await runtime.call(alice, { tool: "reserve_funds", args: reserve(20), operation_id: "op-q" });
    expect(await pendingNow()).toBe(2);
    const id = ask.outcome === "terminal_failure" ? ask.approval_id! : "";
    expect((await runtime.approvals.decide(id, { decision: "approve" }, bob)).ok).toBe(true);
    expect(await pendingNow()).toBe(1);
    // Deciding twice does not count twice.
    await runtime.approvals.decide(id, { decision: "reject" }, bob);
    expect(await pendingNow()).toBe(1);
  });
});
