/**
 * The approvals API that humans reach (CLI, HTTP inbox) and hosts embed: decide and events
 * (`decide.ts`), plus list, get with everything needed to decide, and the edit link that lets
 * resume run an edited call.
 */
import type { Clock } from "../clock.js";
import type { Store } from "../store/store.js";
import type { Approvals, DecideOutcome } from "./decide.js";
import { getApprovalDetail } from "./get.js";
import { listApprovals } from "./list.js";
import type { ApprovalDetail, ApprovalPage, ListApprovalsRequest } from "./types.js";

export interface InboxApprovals extends Omit<Approvals, "get"> {
  /** One page of a tenant's approvals, newest first. Throws ApprovalsError on a bad request or cursor. */
  list(req: ListApprovalsRequest): Promise<ApprovalPage>;
  /** The approval with its events, the policy's reason and the stored call; null when unknown. */
  get(approvalId: string): Promise<ApprovalDetail | null>;
}

/** After an edit, the original call's stored context carries over to the edited call. */
async function linkEdit(store: Store, clock: Clock, approvalId: string, out: DecideOutcome): Promise<void> {
  if (!out.ok || out.edited === undefined) return;
  const original = await store.getPendingCall(approvalId);
  if (original === null) return;
  await store.replacePendingCall(approvalId, {
    approval_id: out.edited.approval.id,
    tenant: original.tenant,
    run_id: original.run_id,
    user: original.user,
    roles: original.roles,
    tool: out.edited.tool,
    args: out.edited.args,
    operation_id: out.edited.operation_id,
    policy_reason: original.policy_reason,
    created_at_ms: clock.now(),
  });
}

export function extendApprovals(core: Approvals, deps: { readonly store: Store; readonly clock: Clock }): InboxApprovals {
  const decide = async (...args: Parameters<Approvals["decide"]>): Promise<DecideOutcome> => {
    const out = await core.decide(...args);
    await linkEdit(deps.store, deps.clock, args[0], out);
    return out;
  };
  return {
    ...core,
    decide,
    list: (req) => listApprovals(deps.store, req),
    get: (id) => getApprovalDetail(deps.store, id, deps.clock.now()),
  };
}
