/**
 * What every framework adapter shares: the tools offered to a principal, and calls of
 * one tool through the gate with the pending toolgate approval remembered per framework
 * tool-call id, so a framework's "needs approval" pause and its resumed execution refer
 * to the one toolgate approval a human decides through `runtime.approvals.decide`.
 */
import type { TrustedContext } from "../generated-runtime.js";
import type { ToolManifestEntry } from "../manifest.js";
import type { Envelope } from "../runtime/envelope.js";
import type { Runtime } from "../runtime/runtime.js";
import type { CallRequest } from "../runtime/types.js";
import type { ApprovalRecord } from "../store/store.js";
import { advertisedInputSchema, toCallRequest } from "./gate-arguments.js";

export interface GatedCallsOptions {
  /** The trusted context of every call (from the host's authentication, never from the model). */
  readonly context: TrustedContext;
}

/** Where the toolgate approval of a paused framework tool call stands. */
export type ApprovalStanding = "approved" | "rejected" | "pending" | "unknown";

export interface GatedCalls {
  readonly runtime: Runtime;
  readonly context: TrustedContext;
  /** The tools this principal is offered (the policy's listing), in name order. */
  tools(): Promise<ToolManifestEntry[]>;
  /** true when the gate answers approval_required for this call now; the pending approval is remembered under `callId`. */
  needsApproval(tool: ToolManifestEntry, input: unknown, callId: string): Promise<boolean>;
  /** Runs the call through `runtime.call`, presenting the approval remembered under `callId` unless the model sent one. */
  call(tool: ToolManifestEntry, input: unknown, callId: string): Promise<Envelope>;
  /** The toolgate approval id of a paused call, for the host to show and decide. */
  approvalFor(callId: string): string | undefined;
  /** The human's decision on that approval, read from toolgate's store. */
  standing(callId: string): Promise<ApprovalStanding>;
}

const standingOf = (a: ApprovalRecord | null): ApprovalStanding => {
  if (a === null) return "unknown";
  if (a.status === "approved") return "approved";
  if (a.status === "pending") return "pending";
  return "rejected";
};

/** The model's own approval_id wins; otherwise the one remembered for this tool call. */
const withRemembered = (request: CallRequest, remembered: string | undefined): CallRequest =>
  request.approval_id === undefined && remembered !== undefined ? { ...request, approval_id: remembered } : request;

export function gatedCalls(runtime: Runtime, options: GatedCallsOptions): GatedCalls {
  const ctx = options.context;
  const pending = new Map<string, string>();
  // A tool that declares a gate argument itself cannot be offered: fail when the adapter is built.
  for (const tool of Object.values(runtime.manifest.tools)) advertisedInputSchema(tool);
  return {
    runtime,
    context: ctx,
    tools: () => runtime.listTools(ctx),
    async needsApproval(tool, input, callId) {
      // Asked again for a call already paused (a framework re-checking on resume): it stays one
      // that needed approval; the gate checks the remembered approval when it executes.
      if (pending.has(callId)) return true;
      const answer = await runtime.preflight(ctx, toCallRequest(tool, input));
      if (answer?.outcome === "terminal_failure" && answer.reason === "approval_required" && answer.approval_id !== undefined) {
        pending.set(callId, answer.approval_id);
        return true;
      }
      return false;
    },
    call: (tool, input, callId) => runtime.call(ctx, withRemembered(toCallRequest(tool, input), pending.get(callId))),
    approvalFor: (callId) => pending.get(callId),
    async standing(callId) {
      const id = pending.get(callId);
      return id === undefined ? "unknown" : standingOf(await runtime.approvals.get(id));
    },
  };
}
