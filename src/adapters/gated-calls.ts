/**
 * What every framework adapter shares: the tools offered to a principal, whether a call
 * needs a human, the call itself through the gate, and a human's decision recorded as the
 * toolgate approval of that call. The call-to-approval link is derived from toolgate's
 * store (`approval-link.ts`), never kept in memory, so a framework's serialized pause
 * resumed by another process, with a new adapter over the same store, continues the same
 * approval; a decision made in the inbox and one made through the framework are the same
 * decision.
 */
import type { TrustedContext } from "../generated-runtime.js";
import type { JsonObject, ToolManifestEntry } from "../manifest.js";
import type { ApproverContext } from "../approvals/approver.js";
import type { DecideOutcome } from "../approvals/decide.js";
import { retryable, terminal } from "../runtime/envelope.js";
import type { Envelope } from "../runtime/envelope.js";
import type { Runtime } from "../runtime/runtime.js";
import { withToolCallId } from "../runtime/telemetry.js";
import type { CallRequest } from "../runtime/types.js";
import { findApprovalOf, linkedApproval } from "./approval-link.js";
import type { LinkedApproval } from "./approval-link.js";
import { advertisedInputSchema, toCallRequest } from "./gate-arguments.js";

export interface GatedCallsOptions {
  /**
   * The trusted principal and run of every call (tenant, user, roles, run_id), from the
   * host's authentication, never from the model. Approvals are requested for it and found
   * only for it.
   */
  readonly context: TrustedContext;
  /**
   * Where an error thrown by the adapter's own store lookups goes (the model gets a fixed
   * retryable answer, never the error's text). Default: stderr.
   */
  readonly onError?: (err: unknown) => void;
}

/** A human's decision on a paused call, as the framework's approval UI collects it. */
export type HumanDecision =
  | { readonly decision: "approve"; readonly reason?: string }
  | { readonly decision: "reject"; readonly reason?: string }
  /** `args`: the tool's own arguments the approver wants instead (checked against the tool's input schema). */
  | { readonly decision: "edit"; readonly args: JsonObject; readonly reason?: string };

export type RecordedDecision =
  | DecideOutcome
  | { readonly ok: false; readonly why: "no_approval"; readonly message: string };

export interface GatedCalls {
  readonly runtime: Runtime;
  readonly context: TrustedContext;
  /** The tools this principal is offered (the policy's listing), in name order. */
  tools(): Promise<ToolManifestEntry[]>;
  /**
   * Whether the framework must pause this call for a human: it has an approval that is not
   * approved (pending, rejected, expired), or the gate answers approval_required now (which
   * creates the toolgate approval). `keepDecided`: also true for an approved or edited one
   * (a framework that re-asks on resume and matches the answers to its earlier pause).
   */
  needsApproval(tool: ToolManifestEntry, input: unknown, options?: { readonly keepDecided?: boolean }): Promise<boolean>;
  /**
   * Runs the call through `runtime.call`, presenting its approval (an edited one runs the
   * edited call instead). `toolCallId`: the framework's id of the call, for telemetry.
   */
  call(tool: ToolManifestEntry, input: unknown, toolCallId?: string): Promise<Envelope>;
  /** The toolgate approval of this call and how it stands, from the store. */
  approvalOf(tool: ToolManifestEntry, input: unknown): Promise<LinkedApproval>;
  /**
   * Records a human's decision as the toolgate approval of this call, as `approver` (the
   * host's authenticated identity): toolgate's rules apply (tenant, roles, four-eyes,
   * self-approval per tool, expiry, an edit's schema). `no_approval`: this call has none.
   */
  decide(tool: ToolManifestEntry, input: unknown, decision: HumanDecision, approver: ApproverContext): Promise<RecordedDecision>;
  /**
   * For an error thrown by the adapter's own store lookups: reports it to onError and returns
   * the model's answer, a fixed retryable envelope (frameworks hand a tool's thrown text to the model).
   */
  lookupFailed(err: unknown): Envelope;
  /** The manifest entry of a tool this principal may be offered, or undefined. */
  toolNamed(name: string): ToolManifestEntry | undefined;
}

/** The gate's own request for the call an edit put in place of the original. */
const editedRequest = (link: Extract<LinkedApproval, { status: "edited" }>): CallRequest => ({
  tool: link.edited.tool,
  args: link.edited.args,
  operation_id: link.edited.operation_id,
  approval_id: link.edited.approval_id,
});

export function gatedCalls(runtime: Runtime, options: GatedCallsOptions): GatedCalls {
  const ctx = options.context;
  const onError = options.onError ?? ((err: unknown) => void process.stderr.write(`toolgate adapter: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`));
  // A tool that declares a gate argument itself cannot be offered: fail when the adapter is built.
  for (const tool of Object.values(runtime.manifest.tools)) advertisedInputSchema(tool);

  const lookupFailed = (err: unknown): Envelope => {
    // A framework hands a tool's thrown text to the model: a driver's message must not get there.
    onError(err);
    return retryable("retryable_error", "the gate could not look up this call's approval (the error was reported to the host); nothing ran: retry the call unchanged", 1_000);
  };

  /** An approval id the model sent: refused unless it is this principal's and this run's own. */
  const foreignApproval = async (request: CallRequest): Promise<Envelope | null> => {
    if (request.approval_id === undefined || typeof request.approval_id !== "string") return null;
    const approval = await runtime.approvals.get(request.approval_id);
    // Another tenant's approval goes to the gate, which answers it as an id that does not exist.
    if (approval === null || approval.tenant !== ctx.tenant || (approval.requested_by === ctx.user && approval.run_id === ctx.run_id)) return null;
    return terminal(
      "policy_denied",
      `approval_principal_mismatch: approval ${request.approval_id} was requested by another user or run; a run presents only approvals requested in it (ask again without approval_id)`,
      request.operation_id === undefined ? {} : { operation_id: request.operation_id },
    );
  };

  const requestFor = async (tool: ToolManifestEntry, input: unknown): Promise<CallRequest> => {
    const request = toCallRequest(tool, input);
    if (request.approval_id !== undefined) return request;
    const link = await linkedApproval(runtime, ctx, tool, input);
    if (link.status === "none") return request;
    if (link.status === "edited") return editedRequest(link);
    // Any other standing is presented as is: the gate answers for it (approved runs; rejected or expired is refused, logged).
    return { ...request, approval_id: link.approval.id };
  };

  return {
    runtime,
    context: ctx,
    tools: () => runtime.listTools(ctx),
    toolNamed: (name) => (Object.prototype.hasOwnProperty.call(runtime.manifest.tools, name) ? runtime.manifest.tools[name] : undefined),
    async needsApproval(tool, input, opts) {
      const link = await linkedApproval(runtime, ctx, tool, input);
      if (link.status === "approved" || link.status === "edited") return opts?.keepDecided === true;
      if (link.status !== "none") return true;
      const request = toCallRequest(tool, input);
      // The model's own approval_id is checked by the gate when the call runs.
      if (request.approval_id !== undefined) return false;
      const answer = await runtime.preflight(ctx, request);
      return answer?.outcome === "terminal_failure" && answer.reason === "approval_required" && answer.approval_id !== undefined;
    },
    async call(tool, input, toolCallId) {
      const run = async (): Promise<Envelope> => {
        let request: CallRequest;
        let foreign: Envelope | null;
        try {
          request = await requestFor(tool, input);
          foreign = await foreignApproval(request);
        } catch (err) {
          return lookupFailed(err);
        }
        return foreign ?? runtime.call(ctx, request);
      };
      return toolCallId === undefined || toolCallId === "" ? run() : withToolCallId(toolCallId, run);
    },
    approvalOf: (tool, input) => linkedApproval(runtime, ctx, tool, input),
    lookupFailed,
    async decide(tool, input, decision, approver) {
      const approval = await findApprovalOf(runtime, ctx, tool, input);
      if (approval === null) {
        return { ok: false, why: "no_approval", message: `no toolgate approval was requested for this call of ${tool.name} in run ${ctx.run_id}` };
      }
      const out = await runtime.approvals.decide(
        approval.id,
        {
          decision: decision.decision,
          ...(decision.reason === undefined ? {} : { reason: decision.reason }),
          ...(decision.decision === "edit" ? { edited_args: decision.args } : {}),
        },
        approver,
      );
      return out;
    },
  };
}
