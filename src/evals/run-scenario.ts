/**
 * Runs one agent through one scenario against the real gate: the manifest (with the
 * suite's scaled-down timeouts), the compiled policy, createRuntime over a store, and
 * the scripted surface. The runner is the agent's tool client: it waits up to the
 * agent's patience for each answer, plays the host approver (approve and resume,
 * unless the scenario scripts `approval_required`), and records the trajectory.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { StandaloneValidator, TrustedContext } from "../generated-runtime.js";
import type { JsonObject, Manifest, ToolManifestEntry } from "../manifest.js";
import type { PolicyEngine } from "../policy/engine.js";
import { createRuntime } from "../runtime/index.js";
import type { Envelope, Runtime } from "../runtime/index.js";
import type { Store } from "../store/store.js";
import { agentTools } from "./agent.js";
import type { Agent, AgentMessage, AgentStep, AgentToolCall } from "./agent.js";
import { hostDecide } from "./host-approver.js";
import { scriptSurface } from "./surface.js";
import type { SurfaceFactory } from "./surface.js";
import type { ResponseKind, Scenario, Suite } from "./suite-types.js";
import type { Trajectory, TrajectoryCall } from "./trajectory.js";

export interface ScenarioEnv {
  readonly manifest: Manifest;
  readonly validators: { readonly [tool: string]: { readonly input: StandaloneValidator; readonly output: StandaloneValidator } };
  readonly policy: PolicyEngine;
  readonly store: Store;
  readonly surface: SurfaceFactory;
  /** The trusted identity the calls run under (tenant must be unique per scenario run). */
  readonly ctx: TrustedContext;
  /** How long to wait, after the run, for calls the agent stopped waiting for (their effects count). */
  readonly settleMs: number;
}

/** Lease margin beyond each tool's timeout during an evaluation run. */
export const LEASE_MARGIN_MS = 100;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const toJson = (e: Envelope): JsonObject => JSON.parse(JSON.stringify(e)) as JsonObject;

/** The manifest as this scenario sees it: the suite's timeout, and retry hints the scenario overrides. */
export function scenarioManifest(manifest: Manifest, suite: Suite, scenario: Scenario): Manifest {
  const tools: Record<string, ToolManifestEntry> = {};
  for (const [name, tool] of Object.entries(manifest.tools)) {
    let failures = tool.failures;
    for (const r of scenario.responses[name] ?? []) {
      if (r.kind === "retryable" && r.retry_after_ms !== undefined) failures = { ...failures, [r.failure]: { class: "retryable", retry_after_ms: r.retry_after_ms } };
    }
    tools[name] = { ...tool, failures, timeout_ms: suite.timeout_ms ?? tool.timeout_ms };
  }
  return { ...manifest, tools };
}

export async function runScenario(suite: Suite, scenario: Scenario, agent: Agent, env: ScenarioEnv): Promise<Trajectory> {
  const started = Date.now();
  const manifest = scenarioManifest(env.manifest, suite, scenario);
  const surface = env.surface(scenario.state);
  // Each response is credited to the call it served, even one that answers after the agent moved on.
  const serving = new AsyncLocalStorage<{ tool: string; kind: ResponseKind }[]>();
  const scripted = scriptSurface(surface, scenario.responses, (tool, kind) => serving.getStore()?.push({ tool, kind }));
  const runtime = createRuntime({
    manifest,
    validators: env.validators,
    handlers: scripted.handlers,
    reconcilers: surface.reconcilers,
    policy: env.policy,
    store: env.store,
    // Scaled down with the suite's timeouts: a timed-out write's claim (and its retry_after_ms) lasts timeout + this.
    leaseMarginMs: LEASE_MARGIN_MS,
    onError: () => undefined,
  });
  const tools = agentTools(manifest, scenario.tools);
  const messages: AgentMessage[] = [];
  if (scenario.intent.context !== undefined) messages.push({ role: "context", facts: scenario.intent.context });
  messages.push({ role: "user", content: scenario.intent.message });

  const calls: TrajectoryCall[] = [];
  const abandoned: Promise<unknown>[] = [];
  let final: string | null = null;
  let stopped: Trajectory["stopped"] = "max_steps";
  let agentError: string | null = null;
  let step = 0;
  for (; step < scenario.max_steps; step++) {
    let next: AgentStep;
    try {
      next = checkStep(await agent.step(messages, tools));
    } catch (err) {
      stopped = "agent_error";
      agentError = err instanceof Error ? err.message : String(err);
      break;
    }
    if (next.kind === "final") {
      final = next.text;
      stopped = "final";
      messages.push({ role: "assistant", content: next.text, tool_calls: [] });
      break;
    }
    messages.push({ role: "assistant", content: "", tool_calls: next.calls });
    for (const call of next.calls) {
      const responses: { tool: string; kind: ResponseKind }[] = [];
      const sentAt = Date.now() - started;
      const served = serving.run(responses, () => serve(runtime, env.ctx, call, scripted.nextApproval));
      const answer = await withPatience(served, scenario.patience_ms);
      if (answer === null) abandoned.push(served);
      const result: JsonObject =
        answer === null
          ? {
              outcome: "retryable_failure",
              reason: "timeout",
              message: `no answer within ${scenario.patience_ms} ms (the agent's patience); the call may still complete: retry with the same operation_id to rejoin it`,
              retry_after_ms: 0,
              ...(call.operation_id === undefined ? {} : { operation_id: call.operation_id }),
            }
          : toJson(answer.envelope);
      calls.push({
        index: calls.length,
        step,
        call,
        result,
        answered_by: answer === null ? "patience" : "gate",
        responses,
        approval: answer?.approval ?? null,
        sent_ms: sentAt,
        answered_ms: Date.now() - started,
      });
      messages.push({ role: "tool", call_id: call.id, tool: call.tool, result });
    }
  }
  // Calls the agent stopped waiting for still run; their effects are part of the outcome.
  if (abandoned.length > 0) await Promise.race([Promise.allSettled(abandoned), sleep(env.settleMs)]);
  return {
    suite: suite.name,
    scenario: scenario.id,
    agent: agent.name,
    calls,
    final,
    steps: Math.min(step + 1, scenario.max_steps),
    stopped,
    agent_error: agentError,
    effects: [...surface.effects()],
    duration_ms: Date.now() - started,
  };
}

/** More calls in one step than this is treated as a broken agent, not run. */
export const MAX_CALLS_PER_STEP = 16;

export class MalformedStepError extends Error {
  override name = "MalformedStepError";
}

/** The agent's answer is untrusted too: anything but a well-formed step ends the run as an agent error. */
export function checkStep(v: unknown): AgentStep {
  const bad = (why: string): never => {
    throw new MalformedStepError(`malformed agent step: ${why}`);
  };
  if (typeof v !== "object" || v === null) return bad("not an object");
  const step = v as Record<string, unknown>;
  if (step.kind === "final") return typeof step.text === "string" ? { kind: "final", text: step.text } : bad("final without a text string");
  if (step.kind !== "tool_calls") return bad(`kind must be "final" or "tool_calls", got ${JSON.stringify(step.kind) ?? "nothing"}`);
  if (!Array.isArray(step.calls) || step.calls.length === 0) return bad("tool_calls without calls");
  if (step.calls.length > MAX_CALLS_PER_STEP) return bad(`${step.calls.length} calls in one step (at most ${MAX_CALLS_PER_STEP})`);
  const calls = step.calls.map((c: unknown, i: number): AgentToolCall => {
    if (typeof c !== "object" || c === null) return bad(`call ${i} is not an object`);
    const o = c as Record<string, unknown>;
    if (typeof o.id !== "string" || typeof o.tool !== "string") return bad(`call ${i} needs string id and tool`);
    for (const k of ["operation_id", "approval_id"] as const) if (o[k] !== undefined && typeof o[k] !== "string") return bad(`call ${i}: ${k} must be a string`);
    return {
      id: o.id,
      tool: o.tool,
      args: o.args,
      ...(typeof o.operation_id === "string" ? { operation_id: o.operation_id } : {}),
      ...(typeof o.approval_id === "string" ? { approval_id: o.approval_id } : {}),
    };
  });
  return { kind: "tool_calls", calls };
}

interface Served {
  readonly envelope: Envelope;
  readonly approval: TrajectoryCall["approval"];
}

/** One agent call through the gate, with the host approver's part. */
async function serve(runtime: Runtime, ctx: TrustedContext, call: AgentToolCall, nextApproval: (tool: string) => "pending" | "reject" | null): Promise<Served> {
  const request = {
    tool: call.tool,
    args: call.args,
    ...(call.operation_id === undefined ? {} : { operation_id: call.operation_id }),
    ...(call.approval_id === undefined ? {} : { approval_id: call.approval_id }),
  };
  const first = await runtime.call(ctx, request);
  if (first.outcome !== "terminal_failure" || first.reason !== "approval_required" || first.approval_id === undefined) return { envelope: first, approval: null };
  const id = first.approval_id;
  const scripted = nextApproval(call.tool);
  if (scripted === "pending") return { envelope: first, approval: { id, decision: "pending" } };
  const problem = await hostDecide(runtime, ctx.tenant, id, scripted === "reject" ? "reject" : "approve");
  if (problem !== null) return { envelope: first, approval: { id, decision: "pending" } };
  // Host-side resume: the same call again, now with the decided approval.
  const resumed = await runtime.call(ctx, { ...request, approval_id: id });
  return { envelope: resumed, approval: { id, decision: scripted === "reject" ? "rejected" : "approved" } };
}

async function withPatience<T>(work: Promise<T>, patienceMs: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), patienceMs);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
