/** An approval and a decision event as the approvals tests build them: an approval of t1 requested by alice, decided by bob. */
import type { ApprovalDecisionKind, ApprovalEvent, ApprovalRecord, NewApproval } from "../../src/store/store.js";

export const T0 = 1_700_000_000_000;
export const TTL = 60_000;

export const newApproval = (id: string): NewApproval => ({
  id,
  tenant: "t1",
  run_id: "r1",
  requested_by: "alice",
  tool: "reserve_funds",
  args: { amount: 5 },
  preview: { amount: 5 },
  fingerprint: `fp-${id}`,
  args_hash: `ah-${id}`,
  operation_id: `op-${id}`,
  created_at_ms: T0,
  expires_at_ms: T0 + TTL,
  policy_version: "pv",
  policy_code_version: "pc",
  policy_data_version: "pd",
});

/** The approval `id` as read, pending and undecided unless `over` says otherwise. */
export const approvalRecord = (id: string, over: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  ...newApproval(id),
  status: "pending",
  decision: null,
  consumed_by: null,
  consumed_at_ms: null,
  ...over,
});

/** bob's `decision` of approval `id` at `at`. */
export const decisionEvent = (id: string, decision: ApprovalDecisionKind, at = T0 + 1): ApprovalEvent => ({
  approval_id: id,
  decision,
  approver: "bob",
  approver_roles: ["ops"],
  reason: null,
  edited_args: null,
  decided_at_ms: at,
  policy_version: "pv",
  policy_code_version: "pc",
  policy_data_version: "pd",
});
