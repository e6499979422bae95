/**
 * toolgate/langchain: the gated tools as LangChain structured tools, and a bridge between
 * LangChain v1's human-in-the-loop (`createAgent` + `humanInTheLoopMiddleware`, or LangGraph's
 * `interrupt()` inside the tools) and toolgate's approvals, so one human decision is the
 * toolgate approval of the call.
 *
 * - `interruptOn` configures `humanInTheLoopMiddleware`: it pauses exactly the calls the gate
 *   sends to a human (its `when` is a preflight that creates the toolgate approval) and shows
 *   the toolgate approval in the request's description.
 * - `decide` records an authenticated approver's decisions as the toolgate approvals and
 *   returns the resume `Command`; `resumeCommand` builds it from decisions made elsewhere (the
 *   inbox). Edits become toolgate edits (checked against the tool's input schema; the edited
 *   call is authorised again when it runs); rejections and expiries reach the agent as the
 *   middleware's rejection tool message.
 * - A resume `Command` made without toolgate's decision runs nothing: every execution goes
 *   through `runtime.call` with the call's own toolgate approval.
 */
import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { Command, interrupt } from "@langchain/langgraph";
import type { Decision, HITLRequest, InterruptOnConfig } from "langchain";
import type { JsonObject, ToolManifestEntry } from "../manifest.js";
import type { ApproverContext } from "../approvals/approver.js";
import type { Runtime } from "../runtime/runtime.js";
import type { LinkedApproval } from "./approval-link.js";
import { advertisedInputSchema, gateArguments } from "./gate-arguments.js";
import { gatedCalls } from "./gated-calls.js";
import type { GatedCalls, GatedCallsOptions, HumanDecision, RecordedDecision } from "./gated-calls.js";

export interface LangChainToolsOptions extends GatedCallsOptions {
  /**
   * `"interrupt"`: a tool whose call needs a human calls LangGraph's `interrupt()` itself (for
   * graphs without `humanInTheLoopMiddleware`; needs a checkpointer), with the same request
   * shape as the middleware; the resumed tool reads toolgate's decision. Default `"middleware"`:
   * the tools never interrupt; pass `interruptOn` to `humanInTheLoopMiddleware`.
   */
  readonly pause?: "middleware" | "interrupt";
}

export type DecideRefused = { readonly index: number; readonly why: Exclude<RecordedDecision, { ok: true }>["why"] | "unknown_tool" | "invalid_decision"; readonly message: string };

export type LangChainDecideOutcome =
  | { readonly ok: true; readonly command: Command; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly refused: readonly DecideRefused[] };

export interface LangChainTools {
  /** Pass to `createAgent({ tools })` or a LangGraph `ToolNode`. */
  readonly tools: DynamicStructuredTool[];
  readonly gate: GatedCalls;
  /** Pass to `humanInTheLoopMiddleware({ interruptOn })`: the gated tools that can need a human. */
  readonly interruptOn: Record<string, InterruptOnConfig>;
  /** The toolgate approval of one action request and how it stands. */
  approvalOf(action: { readonly name: string; readonly args: unknown }): Promise<LinkedApproval>;
  /**
   * Records `approver`'s decisions (one per action request, in order) as the toolgate approvals
   * and returns the `Command` that resumes the run with them. Not ok (and no command) when
   * toolgate's rules refuse one; the others stay recorded.
   */
  decide(request: HITLRequest, decisions: readonly Decision[], approver: ApproverContext): Promise<LangChainDecideOutcome>;
  /** The resume `Command` that toolgate's decisions give (made anywhere, e.g. the inbox), or null while one is pending. */
  resumeCommand(request: HITLRequest): Promise<Command | null>;
}

const ALL_DECISIONS = ["approve", "edit", "reject"] as const;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The tool's own arguments of an edited action (the gate's operation_id / approval_id are the gate's to set). */
function ownArgs(entry: ToolManifestEntry, args: unknown): JsonObject | null {
  if (!isObject(args)) return null;
  const gate = gateArguments(entry);
  const { operation_id: _op, approval_id: _approval, ...rest } = args;
  return gate.operation_id ? rest : { ...rest, ...(_op === undefined ? {} : { operation_id: _op }) };
}

/** The framework decision toolgate's standing gives; null while pending. */
function decisionFor(name: string, link: LinkedApproval): Decision | null {
  switch (link.status) {
    case "approved":
      return { type: "approve" };
    case "edited":
      return { type: "edit", editedAction: { name: link.edited.tool, args: { ...link.edited.args, operation_id: link.edited.operation_id, approval_id: link.edited.approval_id } } };
    case "rejected":
    case "expired":
      return { type: "reject", message: link.message };
    case "none":
      return { type: "reject", message: `toolgate has no approval for this call of ${name} in this run; nothing ran` };
    case "pending":
      return null;
  }
}

function toHumanDecision(entry: ToolManifestEntry, d: Decision): HumanDecision | null {
  if (d.type === "approve") return { decision: "approve" };
  if (d.type === "reject") return { decision: "reject", ...(typeof d.message === "string" ? { reason: d.message } : {}) };
  if (d.type === "edit") {
    const args = d.editedAction?.name === entry.name ? ownArgs(entry, d.editedAction.args) : null;
    return args === null ? null : { decision: "edit", args };
  }
  return null;
}

const describe = (entry: ToolManifestEntry, link: LinkedApproval): string =>
  link.status === "none"
    ? `${entry.name} needs a human approval`
    : `${entry.name} needs a human approval: toolgate approval ${link.approval.id} of ${JSON.stringify(link.approval.preview)} (expires ${new Date(link.approval.expires_at_ms).toISOString()})`;

export async function createLangChainTools(runtime: Runtime, options: LangChainToolsOptions): Promise<LangChainTools> {
  const gate = gatedCalls(runtime, options);
  const pauseInTool = options.pause === "interrupt";
  const offered = await gate.tools();
  const canPause = offered.filter((e) => gateArguments(e).approval_id);

  const requestOf = async (entry: ToolManifestEntry, input: unknown): Promise<HITLRequest> => ({
    actionRequests: [{ name: entry.name, args: isObject(input) ? input : {}, description: describe(entry, await gate.approvalOf(entry, input)) }],
    reviewConfigs: [{ actionName: entry.name, allowedDecisions: [...ALL_DECISIONS], argsSchema: entry.input_schema }],
  });

  /** In "interrupt" mode: pause until toolgate decides, then run what the decision says. */
  const runPausing = async (entry: ToolManifestEntry, input: unknown, toolCallId: string | undefined): Promise<string | ToolMessage> => {
    // The lookups' errors are answered, never thrown (ToolNode would show the model their text); interrupt() must throw.
    const failed = (err: unknown): string => JSON.stringify(gate.lookupFailed(err));
    let needs: boolean;
    let request: HITLRequest;
    try {
      needs = await gate.needsApproval(entry, input, { keepDecided: true });
      request = needs ? await requestOf(entry, input) : { actionRequests: [], reviewConfigs: [] };
    } catch (err) {
      return failed(err);
    }
    if (needs) {
      // The resume value only wakes the tool; toolgate's record is the decision. Each pause is its own interrupt.
      for (let pauses = 0; pauses < 100; pauses += 1) {
        interrupt(request);
        let link: LinkedApproval;
        try {
          link = await gate.approvalOf(entry, input);
        } catch (err) {
          return failed(err);
        }
        // As humanInTheLoopMiddleware answers a rejection: an error tool message the model reads.
        if (link.status === "rejected" || link.status === "expired") return toolCallId === undefined ? link.message : new ToolMessage({ content: link.message, tool_call_id: toolCallId, status: "error" });
        if (link.status !== "pending") break;
      }
    }
    return JSON.stringify(await gate.call(entry, input, toolCallId));
  };

  const tools: DynamicStructuredTool[] = [];
  for (const entry of offered) {
    const schema = advertisedInputSchema(entry) as Parameters<typeof tool>[1]["schema"];
    tools.push(
      tool(
        async (input: unknown, config?: { toolCall?: { id?: string } }) => {
          const toolCallId = config?.toolCall?.id;
          return pauseInTool ? runPausing(entry, input, toolCallId) : JSON.stringify(await gate.call(entry, input, toolCallId));
        },
        { name: entry.name, description: entry.description, schema: schema as never },
      ) as unknown as DynamicStructuredTool,
    );
  }

  const interruptOn: Record<string, InterruptOnConfig> = {};
  for (const entry of canPause) {
    interruptOn[entry.name] = {
      allowedDecisions: [...ALL_DECISIONS],
      argsSchema: entry.input_schema,
      // Asked again when the run resumes: a call keeps its pause once decided, so decisions match requests.
      when: (req) => gate.needsApproval(entry, req.toolCall.args, { keepDecided: true }),
      description: async (toolCall) => describe(entry, await gate.approvalOf(entry, toolCall.args)),
    };
  }

  const approvalOf = async (action: { readonly name: string; readonly args: unknown }): Promise<LinkedApproval> => {
    const entry = gate.toolNamed(action.name);
    return entry === undefined ? { status: "none" } : gate.approvalOf(entry, action.args);
  };

  const resumeCommand = async (request: HITLRequest): Promise<Command | null> => {
    const decisions: Decision[] = [];
    for (const action of request.actionRequests) {
      const d = decisionFor(action.name, await approvalOf(action));
      if (d === null) return null;
      decisions.push(d);
    }
    return new Command({ resume: { decisions } });
  };

  return {
    tools,
    gate,
    interruptOn,
    approvalOf,
    resumeCommand,
    async decide(request, decisions, approver) {
      const refused: DecideRefused[] = [];
      const warnings: string[] = [];
      if (decisions.length !== request.actionRequests.length) {
        return { ok: false, refused: [{ index: -1, why: "invalid_decision", message: `${decisions.length} decisions for ${request.actionRequests.length} action requests; give one per request, in order` }] };
      }
      for (const [index, action] of request.actionRequests.entries()) {
        const entry = gate.toolNamed(action.name);
        const d = decisions[index] as Decision;
        if (entry === undefined) {
          refused.push({ index, why: "unknown_tool", message: `${action.name} is not a tool of this gate` });
          continue;
        }
        const human = toHumanDecision(entry, d);
        if (human === null) {
          refused.push({ index, why: "invalid_decision", message: `decision ${index} must be approve, reject, or edit of ${entry.name} with an arguments object` });
          continue;
        }
        const out = await gate.decide(entry, action.args, human, approver);
        if (out.ok) warnings.push(...out.warnings);
        // Decided before (a repeated resume): the recorded decision stands and is what resumes.
        else if (out.why !== "already_decided") refused.push({ index, why: out.why, message: out.message });
      }
      if (refused.length > 0) return { ok: false, refused };
      const command = await resumeCommand(request);
      if (command === null) return { ok: false, refused: [{ index: -1, why: "invalid_decision", message: "a decision was not recorded; decide again" }] };
      return { ok: true, command, warnings };
    },
  };
}
