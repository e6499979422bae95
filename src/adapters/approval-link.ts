/**
 * The link from a framework's paused tool call to its toolgate approval, derived from the
 * store on every use (never kept in memory), so a new process with the same store finds it.
 * An approval is bound to tenant, tool, operation id and the complete arguments; the link also
 * requires the same requester and run as the adapter's trusted context, so one run never finds
 * (or presents) another run's approval.
 */
import type { TrustedContext } from "../generated-runtime.js";
import type { JsonObject, ToolManifestEntry } from "../manifest.js";
import type { Runtime } from "../runtime/runtime.js";
import { argsHash } from "../call-data/fingerprint.js";
import type { ApprovalRecord } from "../store/store.js";
import { toCallRequest } from "./gate-arguments.js";

/** The call an edit put in place of the original: run exactly this (the gate authorises it again). */
export interface EditedCall {
  readonly tool: string;
  readonly args: JsonObject;
  readonly operation_id: string;
  readonly approval_id: string;
}

/** Where the toolgate approval of one framework tool call stands. */
export type LinkedApproval =
  | { readonly status: "none" }
  | { readonly status: "pending"; readonly approval: ApprovalRecord }
  | { readonly status: "approved"; readonly approval: ApprovalRecord }
  | { readonly status: "edited"; readonly approval: ApprovalRecord; readonly edited: EditedCall }
  /** Rejected or revoked by an approver; `message` says who and why, for the agent. */
  | { readonly status: "rejected"; readonly approval: ApprovalRecord; readonly message: string }
  | { readonly status: "expired"; readonly approval: ApprovalRecord; readonly message: string };

/** Approvals scanned per lookup at most (newest first, one tenant, tool and requester): a bound, not an expected size. */
const MAX_SCANNED = 1_000;
const PAGE = 200;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The newest approval of this exact call (tenant, requester, run, tool, operation id, argument hash), or null. */
export async function findApprovalOf(runtime: Runtime, ctx: TrustedContext, tool: ToolManifestEntry, input: unknown): Promise<ApprovalRecord | null> {
  const request = toCallRequest(tool, input);
  // Approvals bind an operation id; a call without one (or with arguments that are no JSON object) has none.
  if (typeof request.operation_id !== "string" || !isObject(request.args)) return null;
  let hash: string;
  try {
    // The JSON copy the gate hashes (prepare parses the arguments' JSON text).
    hash = argsHash(ctx.tenant, tool.name, JSON.parse(JSON.stringify(request.args)) as JsonObject);
  } catch {
    return null;
  }
  let cursor: string | undefined;
  for (let scanned = 0; scanned < MAX_SCANNED; scanned += PAGE) {
    const page = await runtime.approvals.list({ tenant: ctx.tenant, tool: tool.name, requested_by: ctx.user, limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
    const hit = page.approvals.find((a) => a.operation_id === request.operation_id && a.args_hash === hash && a.run_id === ctx.run_id);
    if (hit !== undefined) return hit;
    if (page.next_cursor === null) return null;
    cursor = page.next_cursor;
  }
  return null;
}

/**
 * The approval of an edit's call when no pending call links it (the approval was requested by
 * a preflight, which stores none): the approved approval of the same requester, run and tool,
 * for the edited arguments, that the runtime made for this edit.
 */
async function findEditOf(runtime: Runtime, edited: ApprovalRecord): Promise<ApprovalRecord | null> {
  const args = edited.decision?.edited_args ?? null;
  if (args === null) return null;
  const hash = argsHash(edited.tenant, edited.tool, args);
  const marker = `edit of ${edited.id}`;
  let cursor: string | undefined;
  for (let scanned = 0; scanned < MAX_SCANNED; scanned += PAGE) {
    const page = await runtime.approvals.list({ tenant: edited.tenant, tool: edited.tool, requested_by: edited.requested_by, status: "approved", limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
    const hit = page.approvals.find(
      (a) => a.run_id === edited.run_id && a.args_hash === hash && a.decision !== null && (a.decision.reason === marker || a.decision.reason?.startsWith(`${marker}:`) === true),
    );
    if (hit !== undefined) return hit;
    if (page.next_cursor === null) return null;
    cursor = page.next_cursor;
  }
  return null;
}

/** How an approval stands now, with the edited call when it was edited. */
export async function standingOf(runtime: Runtime, approval: ApprovalRecord): Promise<LinkedApproval> {
  const detail = await runtime.approvals.get(approval.id);
  const a = detail ?? approval;
  const who = a.decision === null ? "" : ` by ${a.decision.approver}${a.decision.reason === null ? "" : `: ${a.decision.reason}`}`;
  switch (a.status) {
    case "pending":
      return detail?.expired === true
        ? { status: "expired", approval: a, message: `toolgate approval ${a.id} expired before anyone decided it; nothing ran` }
        : { status: "pending", approval: a };
    case "approved":
      return { status: "approved", approval: a };
    case "edited": {
      const replacement = detail?.pending_call?.replaced_by ?? null;
      const next = replacement === null ? await findEditOf(runtime, a) : await runtime.approvals.get(replacement);
      if (next === null || next.operation_id === null) {
        return { status: "rejected", approval: a, message: `toolgate approval ${a.id} was edited${who}, but the edited call is not stored; nothing ran` };
      }
      return { status: "edited", approval: a, edited: { tool: next.tool, args: next.args, operation_id: next.operation_id, approval_id: next.id } };
    }
    case "expired":
      return { status: "expired", approval: a, message: `toolgate approval ${a.id} expired before anyone decided it; nothing ran` };
    case "rejected":
    case "revoked":
      return { status: "rejected", approval: a, message: `toolgate approval ${a.id} was ${a.status}${who}; nothing ran` };
  }
}

/** The link of one framework tool call: its approval and how it stands, or `none`. */
export async function linkedApproval(runtime: Runtime, ctx: TrustedContext, tool: ToolManifestEntry, input: unknown): Promise<LinkedApproval> {
  const approval = await findApprovalOf(runtime, ctx, tool, input);
  return approval === null ? { status: "none" } : standingOf(runtime, approval);
}
