/** The record of one agent run through one scenario: every step, call and answer. */
import type { JsonObject } from "../manifest.js";
import type { AgentToolCall } from "./agent.js";
import type { SurfaceEffect } from "./surface.js";
import type { ResponseKind } from "./suite-types.js";

export interface TrajectoryCall {
  /** Position among the run's calls, from 0. */
  readonly index: number;
  /** The agent step that made it, from 0. */
  readonly step: number;
  readonly call: AgentToolCall;
  /** What the agent received: the gate's envelope, or the client's note that none came within its patience. */
  readonly result: JsonObject;
  readonly answered_by: "gate" | "patience";
  /** Scripted responses the surface used while serving this call. */
  readonly responses: readonly { readonly tool: string; readonly kind: ResponseKind }[];
  /** The host approver's part: it approved (and resumed the call), left the approval pending, or rejected it. */
  readonly approval: { readonly id: string; readonly decision: "approved" | "pending" | "rejected" } | null;
  /** When the call was sent and answered, in ms since the run started (real time). */
  readonly sent_ms: number;
  readonly answered_ms: number;
}

export interface Trajectory {
  readonly suite: string;
  readonly scenario: string;
  readonly agent: string;
  readonly calls: readonly TrajectoryCall[];
  /** The agent's final answer; null when it ran out of steps or failed. */
  readonly final: string | null;
  readonly steps: number;
  /** Why the run stopped early: step limit, or the agent threw (its message). */
  readonly stopped: "final" | "max_steps" | "agent_error";
  readonly agent_error: string | null;
  readonly effects: readonly SurfaceEffect[];
  readonly duration_ms: number;
}
