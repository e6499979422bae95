/**
 * resume: the host executes an approved call without the model. It is the model's
 * own retry (same trusted context, tool, arguments, operation id and approval id)
 * made by the host, so the idempotency record decides which of the two commits and
 * the other replays. Not to be confused with `runtime.resume(run)`, which clears a
 * run's interrupt flag.
 */
import { isUnstorable } from "../call-data/unstorable-text.js";
import type { Clock } from "../clock.js";
import type { TrustedContext } from "../generated-runtime.js";
import type { JsonObject } from "../manifest.js";
import type { Store } from "../store/store.js";
import type { ResumeOutcomeOf } from "./types.js";

/** The call resume makes: the caller's retry with the approval. */
export interface ResumedCallRequest {
  readonly tool: string;
  readonly args: JsonObject;
  readonly operation_id?: string;
  readonly approval_id: string;
}

export interface ResumeDeps<E> {
  readonly store: Store;
  readonly clock: Clock;
  /** The gate's call (`runtime.call`). */
  readonly call: (ctx: TrustedContext, request: ResumedCallRequest) => Promise<E>;
}

/** An edit points at the edited call's approval; the chain is short, the bound stops a corrupt loop. */
const MAX_EDIT_HOPS = 16;

export async function resumeApproval<E>(deps: ResumeDeps<E>, approvalId: string): Promise<ResumeOutcomeOf<E>> {
  let id = approvalId;
  for (let hop = 0; hop <= MAX_EDIT_HOPS; hop++) {
    const approval = typeof id === "string" && id.length > 0 && id.length <= 200 && !isUnstorable(id) ? await deps.store.getApproval(id) : null;
    if (approval === null) return { ok: false, why: "not_found", message: `approval ${JSON.stringify(id)} does not exist` };
    const pending = await deps.store.getPendingCall(id);
    if (pending === null) {
      return {
        ok: false,
        why: "no_pending_call",
        message: `approval ${id} has no stored call (it was requested before the call could be stored); the caller must retry with approval_id ${id}`,
      };
    }
    if (approval.status === "edited" && pending.replaced_by !== null) {
      id = pending.replaced_by;
      continue;
    }
    if (approval.status === "pending" && approval.expires_at_ms > deps.clock.now()) {
      return { ok: false, why: "not_decided", message: `approval ${id} is still pending; decide it first` };
    }
    // Approved, rejected, revoked or expired: the gate gives the answer, exactly as for the caller's retry.
    const ctx: TrustedContext = { tenant: pending.tenant, user: pending.user, roles: pending.roles, run_id: pending.run_id };
    const operationId = approval.operation_id ?? pending.operation_id;
    const envelope = await deps.call(ctx, {
      tool: approval.tool,
      args: approval.args,
      ...(operationId === null ? {} : { operation_id: operationId }),
      approval_id: id,
    });
    return { ok: true, approval_id: id, tool: approval.tool, operation_id: operationId, envelope };
  }
  return { ok: false, why: "not_found", message: `approval ${approvalId}: edit chain longer than ${MAX_EDIT_HOPS}` };
}
