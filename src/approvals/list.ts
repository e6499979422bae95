/** list: one page of a tenant's approvals, newest first, with filters and a cursor. */
import type { ApprovalStatus, InboxStore } from "../store/store.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { isUnstorable } from "../call-data/unstorable-text.js";
import { ApprovalsError } from "./errors.js";
import type { ApprovalPage, ListApprovalsRequest } from "./types.js";

/** The statuses a list of approvals can be filtered by. */
export const approvalListStatuses: readonly ApprovalStatus[] = ["pending", "approved", "edited", "rejected", "revoked"];
export const MAX_PAGE = 200;
const DEFAULT_PAGE = 50;

const text = (field: string, v: unknown): string => {
  // A NUL or an unpaired surrogate matches nothing on SQLite and is a driver error on PostgreSQL: refused alike.
  if (typeof v !== "string" || v.length === 0 || v.length > 200 || isUnstorable(v)) {
    throw new ApprovalsError("invalid_request", `${field}: must be a non-empty string of at most 200 characters, without NUL characters or unpaired surrogates`);
  }
  return v;
};

export async function listApprovals(store: InboxStore, req: ListApprovalsRequest): Promise<ApprovalPage> {
  const tenant = text("tenant", req.tenant);
  const limit = req.limit ?? DEFAULT_PAGE;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    throw new ApprovalsError("invalid_request", `limit: must be an integer from 1 to ${MAX_PAGE}`);
  }
  if (req.status !== undefined && !approvalListStatuses.includes(req.status)) {
    throw new ApprovalsError("invalid_request", `status: must be one of ${approvalListStatuses.join(", ")}`);
  }
  let before: number | undefined;
  if (req.older_than !== undefined) {
    before = req.older_than instanceof Date ? req.older_than.getTime() : req.older_than;
    if (!Number.isFinite(before)) throw new ApprovalsError("invalid_request", "older_than: must be a time (epoch ms or a Date)");
  }
  const after = req.cursor === undefined ? undefined : decodeCursor(req.cursor);
  const rows = await store.listApprovals({
    tenant,
    limit: limit + 1,
    ...(req.tool === undefined ? {} : { tool: text("tool", req.tool) }),
    ...(req.status === undefined ? {} : { status: req.status }),
    ...(req.requested_by === undefined ? {} : { requested_by: text("requested_by", req.requested_by) }),
    ...(before === undefined ? {} : { created_before_ms: before }),
    ...(after === undefined ? {} : { after }),
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { approvals: page, next_cursor: rows.length > limit && last !== undefined ? encodeCursor(last) : null };
}
