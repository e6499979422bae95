/** Decides an approval as a human approver through the runtime's approvals API. */
import type { ApproverContext } from "../../src/approvals/approver.js";
import type { JsonObject } from "../../src/manifest.js";
import type { InboxApprovals } from "../../src/approvals/index.js";

export const bob: ApproverContext = { tenant: "t_acme", user: "bob", roles: ["approver"] };

export async function decideAs(
  approvals: InboxApprovals,
  id: string,
  decision: "approve" | "reject" | "edit" | "revoke",
  approver: ApproverContext = bob,
  extra: { reason?: string; edited_args?: JsonObject } = {},
) {
  return approvals.decide(id, { decision, ...extra }, approver);
}
