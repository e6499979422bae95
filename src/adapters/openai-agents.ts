/**
 * toolgate/openai-agents: the gated tools as OpenAI Agents SDK function tools, paused through
 * the SDK's own RunState interruptions. `needsApproval` is answered by the gate (a preflight
 * that creates the toolgate approval, or the call's existing approval, found in the store).
 * `approve` / `reject` / `edit` record an authenticated approver's decision as the toolgate
 * approval and then decide the interruption; `resolveInterruptions` applies decisions made
 * elsewhere (the inbox). A serialized RunState resumed in another process, with a new adapter
 * over the same store, continues the same approval. Every execution goes through
 * `runtime.call` with the call's toolgate approval and returns the envelope (JSON).
 */
import { tool } from "@openai/agents";
import type { FunctionTool, RunToolApprovalItem } from "@openai/agents";
import type { JsonObject } from "../manifest.js";
import type { ApproverContext } from "../approvals/approver.js";
import type { Runtime } from "../runtime/runtime.js";
import type { LinkedApproval } from "./approval-link.js";
import { advertisedInputSchema } from "./gate-arguments.js";
import { gatedCalls } from "./gated-calls.js";
import type { GatedCalls, GatedCallsOptions, RecordedDecision } from "./gated-calls.js";

/** The part of a paused run's `RunState` this adapter uses (any agent and context type). */
export interface ApprovableState {
  approve(item: RunToolApprovalItem): void;
  reject(item: RunToolApprovalItem, options?: { message?: string }): void;
}

export type AgentsDecisionOutcome =
  | { readonly ok: true; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly why: Exclude<RecordedDecision, { ok: true }>["why"] | "unknown_tool"; readonly message: string };

export interface OpenAiAgentsTools {
  /** Pass to `new Agent({ tools })`. */
  readonly tools: FunctionTool[];
  readonly gate: GatedCalls;
  /** The toolgate approval of an interruption and how it stands. */
  approvalOf(item: RunToolApprovalItem): Promise<LinkedApproval>;
  /** Records `approver`'s approval in toolgate, then approves the interruption; refused when toolgate's rules do not admit it. */
  approve(state: ApprovableState, item: RunToolApprovalItem, approver: ApproverContext, reason?: string): Promise<AgentsDecisionOutcome>;
  /** Records `approver`'s rejection in toolgate, then rejects the interruption with a message the model reads. */
  reject(state: ApprovableState, item: RunToolApprovalItem, approver: ApproverContext, reason?: string): Promise<AgentsDecisionOutcome>;
  /** Records `approver`'s edit (the tool's own arguments) in toolgate and approves the interruption: the edited call runs, authorised again. */
  edit(state: ApprovableState, item: RunToolApprovalItem, args: JsonObject, approver: ApproverContext, reason?: string): Promise<AgentsDecisionOutcome>;
  /**
   * Applies toolgate's decisions (made anywhere) to a paused run: approved or edited ->
   * `state.approve`, rejected or expired -> `state.reject` with the reason; pending ones stay
   * interrupted. Returns how many remain undecided; resume with `run(agent, state)`.
   */
  resolveInterruptions(state: ApprovableState, interruptions: readonly RunToolApprovalItem[]): Promise<{ undecided: number }>;
}

/** The tool name and the model's arguments of an interruption. */
function callOf(item: RunToolApprovalItem): { name: string; input: unknown } {
  const raw = item.rawItem as { name?: unknown; arguments?: unknown };
  const name = typeof raw.name === "string" ? raw.name : (item.toolName ?? "");
  let input: unknown = null;
  if (typeof raw.arguments === "string") {
    try {
      input = JSON.parse(raw.arguments) as unknown;
    } catch {
      input = null;
    }
  }
  return { name, input };
}

const callIdOf = (details: unknown): string | undefined => {
  const id = (details as { toolCall?: { callId?: unknown } } | undefined)?.toolCall?.callId;
  return typeof id === "string" ? id : undefined;
};

export async function createOpenAiAgentsTools(runtime: Runtime, options: GatedCallsOptions): Promise<OpenAiAgentsTools> {
  const gate = gatedCalls(runtime, options);
  const tools: FunctionTool[] = [];
  for (const entry of await gate.tools()) {
    // Not strict: the manifest's schema is advertised as written (strict mode would rewrite optional fields).
    const parameters = { ...advertisedInputSchema(entry), type: "object" } as Parameters<typeof tool>[0]["parameters"];
    tools.push(
      tool({
        name: entry.name,
        description: entry.description,
        parameters: parameters as never,
        strict: false,
        needsApproval: async (_ctx, input) => gate.needsApproval(entry, input),
        execute: async (input, _ctx, details) => JSON.stringify(await gate.call(entry, input, callIdOf(details))),
      }) as unknown as FunctionTool,
    );
  }

  const approvalOf = async (item: RunToolApprovalItem): Promise<LinkedApproval> => {
    const { name, input } = callOf(item);
    const entry = gate.toolNamed(name);
    return entry === undefined ? { status: "none" } : gate.approvalOf(entry, input);
  };

  const decideThen = async (
    item: RunToolApprovalItem,
    decision: Parameters<GatedCalls["decide"]>[2],
    approver: ApproverContext,
    apply: () => void,
  ): Promise<AgentsDecisionOutcome> => {
    const { name, input } = callOf(item);
    const entry = gate.toolNamed(name);
    if (entry === undefined) return { ok: false, why: "unknown_tool", message: `${name} is not a tool of this gate` };
    const out = await gate.decide(entry, input, decision, approver);
    if (!out.ok) return out;
    apply();
    return { ok: true, warnings: out.warnings };
  };

  return {
    tools,
    gate,
    approvalOf,
    approve: (state, item, approver, reason) =>
      decideThen(item, { decision: "approve", ...(reason === undefined ? {} : { reason }) }, approver, () => state.approve(item)),
    reject: (state, item, approver, reason) =>
      decideThen(item, { decision: "reject", ...(reason === undefined ? {} : { reason }) }, approver, () =>
        state.reject(item, { message: `rejected by ${approver.user} in toolgate${reason === undefined ? "" : `: ${reason}`}; nothing ran` }),
      ),
    edit: (state, item, args, approver, reason) =>
      decideThen(item, { decision: "edit", args, ...(reason === undefined ? {} : { reason }) }, approver, () => state.approve(item)),
    async resolveInterruptions(state, interruptions) {
      let undecided = 0;
      for (const item of interruptions) {
        const link = await approvalOf(item);
        if (link.status === "approved" || link.status === "edited") state.approve(item);
        else if (link.status === "rejected" || link.status === "expired") state.reject(item, { message: link.message });
        else undecided += 1;
      }
      return { undecided };
    },
  };
}
