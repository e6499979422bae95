/**
 * OpenTelemetry for the gate, through `@opentelemetry/api` only: without an SDK
 * installed by the host every call here is a no-op. Per call one span
 * `execute_tool {tool}` (GenAI semantic conventions: gen_ai.operation.name =
 * execute_tool, gen_ai.tool.name, ...) with child spans prepare / authorize /
 * invoke; a W3C `traceparent` from the caller becomes the parent. Metrics:
 * decisions by outcome and reason, phase and policy-evaluation latency
 * histograms, pending approvals. Enters: call milestones. Leaves: spans and measurements.
 */
import { context, createContextKey, createNoopMeter, isSpanContextValid, metrics, SpanKind, SpanStatusCode, trace, TraceFlags } from "@opentelemetry/api";
import type { Attributes, Context, Counter, Histogram, Meter, Span, SpanContext, Tracer, UpDownCounter } from "@opentelemetry/api";
import type { HandlerErrorDetail } from "../store/store.js";
import { toolgateVersion } from "../version.js";

export interface TelemetryOptions {
  /** Default: the global tracer provider's "toolgate" tracer (a no-op until the host registers an SDK). */
  readonly tracer?: Tracer;
  /** Default: the global meter provider's "toolgate" meter, taken when the runtime is created. */
  readonly meter?: Meter;
}

export type Phase = "prepare" | "authorize" | "invoke";

/** The W3C ids of a call's span, as its decision-log entry carries them (OPA's trace_id, span_id). */
export interface SpanIds {
  readonly trace_id: string;
  readonly span_id: string;
}

/** What the call span is annotated with when the call ends. */
export interface CallSummary {
  readonly tool: string;
  readonly effect: string | null;
  readonly operation_id: string | null;
  readonly decision_id: string;
  readonly decision: string;
  /** The policy's or the runtime's reason. */
  readonly reason: string | null;
  readonly outcome: string;
  readonly outcome_reason: string | null;
  readonly policy_version: string | null;
  readonly eval_ns: number | null;
  readonly shadow_disagrees: boolean | null;
  /** The error the handler threw (sensitive argument values erased): recorded on the span as an exception. */
  readonly error?: HandlerErrorDetail | null;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** A remote parent from a W3C traceparent header value; null for anything malformed (it is caller input). */
export function parseTraceparent(header: unknown): SpanContext | null {
  if (typeof header !== "string" || header.length > 512) return null;
  const m = TRACEPARENT.exec(header.trim().toLowerCase());
  if (m === null) return null;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  // Version ff is invalid; version 00 has nothing after the flags.
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) & TraceFlags.SAMPLED, isRemote: true };
}

/** The label value of every tool name the catalog does not declare, so the model cannot mint series. */
export const UNKNOWN_TOOL = "_unknown";
/**
 * Distinct policy reasons one process gives as metric label values; later new ones are
 * `_other`. A policy may build its reason from the call's arguments (`sprintf`), and each
 * label value is a series. Spans and the decision log keep the exact reason.
 */
export const MAX_REASON_LABELS = 100;
export const OTHER_REASON = "_other";
/** The framework's or protocol's id of the tool call being executed (GenAI `gen_ai.tool.call.id`). */
const toolCallIdKey = createContextKey("toolgate.gen_ai.tool.call.id");

/** Runs `fn` with `id` as the tool-call id the gated calls inside it report (an adapter's or a protocol's call id). */
export function withToolCallId<T>(id: string, fn: () => Promise<T>): Promise<T> {
  return context.with(context.active().setValue(toolCallIdKey, id), fn);
}

/** An approval pause is a normal answer, not an error. */
const isError = (outcomeReason: string | null): boolean => outcomeReason !== null && outcomeReason !== "approval_required";

const seconds = (startNs: bigint): number => Number(process.hrtime.bigint() - startNs) / 1e9;

export class CallTelemetry {
  readonly #t: Telemetry;
  readonly #span: Span;
  readonly #recording: boolean;
  /** The call span's context, made only when the span records (phases nest under it). */
  readonly #ctx: Context | null;
  readonly #start: bigint | null;

  constructor(t: Telemetry, span: Span, parent: Context) {
    this.#t = t;
    this.#span = span;
    this.#recording = span.isRecording();
    this.#ctx = this.#recording ? trace.setSpan(parent, span) : null;
    this.#start = t.metered ? process.hrtime.bigint() : null;
  }

  /**
   * The call span's ids, only while it records: without a tracer (the API's no-op span carries
   * the caller's traceparent ids, not a span of ours) or for an unsampled call there are none.
   */
  get spanIds(): SpanIds | null {
    if (!this.#recording) return null;
    const sc = this.#span.spanContext();
    return isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : null;
  }

  /** Nothing observes this call: no span records and no meter measures (the phases may run unwrapped). */
  get inert(): boolean {
    return !this.#recording && !this.#t.metered;
  }

  /**
   * Runs one phase inside its child span (active, so handler spans nest under invoke).
   * Without a recording span or a meter there is nothing to observe: the phase runs as is.
   */
  phase<T>(name: Phase, fn: () => Promise<T>): Promise<T> {
    if (this.inert) return fn();
    return this.#observed(name, fn);
  }

  async #observed<T>(name: Phase, fn: () => Promise<T>): Promise<T> {
    const start = process.hrtime.bigint();
    const span = this.#ctx === null ? null : this.#t.tracer.startSpan(name, { kind: SpanKind.INTERNAL }, this.#ctx);
    try {
      return span === null || this.#ctx === null ? await fn() : await context.with(trace.setSpan(this.#ctx, span), fn);
    } catch (err) {
      span?.recordException(err instanceof Error ? err : String(err));
      span?.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span?.end();
      this.#t.phaseDuration.record(seconds(start), { "toolgate.phase": name });
    }
  }

  /** Ends the call span; null only for an inert call (nothing to annotate or measure). */
  end(s: CallSummary | null): void {
    if (s === null) {
      if (!this.inert) throw new Error("CallTelemetry.end: a summary is needed when the call is observed");
      return void this.#span.end();
    }
    const reason = s.outcome_reason ?? s.reason ?? "none";
    // A failure's reason is the runtime's own code; a success's is whatever the policy said.
    const reasonLabel = s.outcome_reason !== null ? reason : this.#t.reasonLabel(reason);
    // The model names the tool: only catalog tools (those with an effect) may become label values.
    const tool = s.effect === null ? UNKNOWN_TOOL : s.tool;
    if (this.#start !== null) {
      this.#t.decisions.add(1, {
        "gen_ai.tool.name": tool,
        "toolgate.decision": s.decision,
        "toolgate.outcome": s.outcome,
        "toolgate.reason": reasonLabel,
      });
      this.#t.callDuration.record(seconds(this.#start), { "gen_ai.tool.name": tool, "toolgate.outcome": s.outcome });
    }
    if (!this.#recording) return void this.#span.end();
    if (s.effect === null) this.#span.updateName(`execute_tool ${UNKNOWN_TOOL}`).setAttribute("gen_ai.tool.name", UNKNOWN_TOOL);
    const attrs: Attributes = {
      "toolgate.decision_id": s.decision_id,
      "toolgate.decision": s.decision,
      "toolgate.outcome": s.outcome,
    };
    if (s.effect !== null) attrs["toolgate.tool.effect"] = s.effect;
    if (s.operation_id !== null) attrs["toolgate.operation_id"] = s.operation_id;
    if (s.reason !== null) attrs["toolgate.reason"] = s.reason;
    if (s.outcome_reason !== null) {
      attrs["toolgate.outcome_reason"] = s.outcome_reason;
      if (isError(s.outcome_reason)) attrs["error.type"] = s.outcome_reason;
    }
    if (s.policy_version !== null) attrs["toolgate.policy.version"] = s.policy_version;
    if (s.eval_ns !== null) attrs["toolgate.policy.eval_ns"] = s.eval_ns;
    if (s.shadow_disagrees !== null) attrs["toolgate.shadow.disagrees"] = s.shadow_disagrees;
    if (s.error !== undefined && s.error !== null) {
      attrs["toolgate.error_id"] = s.error.error_id;
      attrs["toolgate.error.treated_as"] = s.error.treated_as;
      this.#span.recordException({ name: s.error.name, message: s.error.message, ...(s.error.code === null ? {} : { code: s.error.code }), ...(s.error.stack === null ? {} : { stack: s.error.stack }) });
    }
    this.#span.setAttributes(attrs);
    if (s.outcome !== "success" && isError(s.outcome_reason)) this.#span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    this.#span.end();
  }
}

export class Telemetry {
  readonly tracer: Tracer;
  readonly decisions: Counter;
  readonly phaseDuration: Histogram;
  readonly callDuration: Histogram;
  readonly #evalDuration: Histogram;
  readonly #pending: UpDownCounter;
  /** False for the API's no-op meter (no meter provider when the runtime was created): nothing to measure per call. */
  readonly metered: boolean;
  readonly #reasonLabels = new Set<string>();

  constructor(opts: TelemetryOptions = {}) {
    this.tracer = opts.tracer ?? trace.getTracer("toolgate", toolgateVersion);
    const meter = opts.meter ?? metrics.getMeter("toolgate", toolgateVersion);
    this.metered = meter !== createNoopMeter();
    this.decisions = meter.createCounter("toolgate.decisions", { description: "Gated calls by decision, outcome and reason" });
    this.phaseDuration = meter.createHistogram("toolgate.phase.duration", { description: "Time spent in one phase of a call", unit: "s" });
    this.callDuration = meter.createHistogram("toolgate.call.duration", { description: "Time of one gated call, end to end", unit: "s" });
    this.#evalDuration = meter.createHistogram("toolgate.policy.evaluation.duration", { description: "Time of one policy evaluation", unit: "s" });
    this.#pending = meter.createUpDownCounter("toolgate.approvals.pending", {
      description: "Approvals requested and not yet decided, as seen by this process (expiry is not subtracted)",
    });
  }

  /** Starts the call span under the caller's traceparent (when valid) or the active context. */
  startCall(tool: string, traceparent: string | undefined): CallTelemetry {
    const remote = traceparent === undefined ? null : parseTraceparent(traceparent);
    const parent = remote === null ? context.active() : trace.setSpanContext(context.active(), remote);
    const callId = context.active().getValue(toolCallIdKey);
    const span = this.tracer.startSpan(
      `execute_tool ${tool}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": tool,
          "gen_ai.tool.type": "function",
          ...(typeof callId === "string" ? { "gen_ai.tool.call.id": callId } : {}),
        },
      },
      parent,
    );
    if (traceparent !== undefined && remote === null && span.isRecording()) span.setAttribute("toolgate.traceparent_invalid", true);
    return new CallTelemetry(this, span, parent);
  }

  /** The policy's reason as a metric label value: itself while fewer than MAX_REASON_LABELS were seen, else OTHER_REASON. */
  reasonLabel(reason: string): string {
    if (this.#reasonLabels.has(reason)) return reason;
    if (this.#reasonLabels.size >= MAX_REASON_LABELS) return OTHER_REASON;
    this.#reasonLabels.add(reason);
    return reason;
  }

  policyEvaluated(ns: number): void {
    if (this.metered) this.#evalDuration.record(ns / 1e9);
  }

  approvalsPending(delta: number): void {
    this.#pending.add(delta);
  }
}
