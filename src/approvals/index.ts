export { createApprovals } from "./create-approvals.js";
export type { ApprovalsOptions } from "./create-approvals.js";
export type { InboxApprovals, RuntimeApprovals } from "./approvals-api.js";
export { ApprovalsError, isApprovalsError } from "./errors.js";
export type { ApprovalsErrorCode } from "./errors.js";
export { approvalPageUrl } from "./link.js";
export type { OnPendingApproval } from "./pending.js";
export type { ApprovalDetail, ApprovalPage, ListApprovalsRequest, ResumeOutcome } from "./types.js";
