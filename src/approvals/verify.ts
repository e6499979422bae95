/**
 * verifyApprovalSignatures: re-checks, offline, every decision of an approval against its
 * stored assertion and the approver's registered public key (what `toolgate approvals verify`
 * prints). A decision is `valid`, `invalid` (with the problem) or `unsigned`; `ok` is false
 * when a signature is invalid, or missing where the tool requires signed approvals.
 */
import type { Manifest } from "../manifest.js";
import type { ApprovalDecisionKind, ApprovalRecord, ApprovalStatus, Store } from "../store/store.js";
import { approvalSignature, eventSignatures } from "./decision-signature.js";
import { effectiveApproval } from "./quorum.js";
import type { SignatureVerdict } from "./decision-signature.js";

export interface DecisionVerification {
  readonly decision: ApprovalDecisionKind;
  readonly approver: string;
  readonly decided_at_ms: number;
  readonly state: "valid" | "invalid" | "unsigned";
  /** Why the signature is invalid, or that one is missing where required. */
  readonly problem: string | null;
}

export interface ApprovalVerification {
  readonly approval_id: string;
  readonly tenant: string;
  readonly tool: string;
  readonly status: ApprovalStatus;
  /** The tool's approvals must be signed (tools.yaml `approval.signed`). */
  readonly signature_required: boolean;
  readonly decisions: readonly DecisionVerification[];
  readonly ok: boolean;
}

type VerifyStore = Pick<Store, "listApprovalEvents" | "listDecisionSignatures" | "getApproverCredential" | "getApproval" | "listApprovalVotes" | "getApprovalRequirement">;

/** Revoke only withdraws; every other decision is signed where the tool requires it. */
const needsSignature = (d: ApprovalDecisionKind): boolean => d !== "revoke";

export async function verifyApprovalSignatures(store: VerifyStore, manifest: Pick<Manifest, "tools">, approval: ApprovalRecord): Promise<ApprovalVerification> {
  const tool = Object.hasOwn(manifest.tools, approval.tool) ? manifest.tools[approval.tool] : undefined;
  const required = effectiveApproval(tool?.approval, await store.getApprovalRequirement(approval.id)).signed;
  const events = await eventSignatures(store, approval);
  // A quorum's earlier approvals are votes, not events: each is checked like an approve.
  const votes: { decision: ApprovalDecisionKind; approver: string; decided_at_ms: number; verdict: SignatureVerdict }[] = [];
  for (const v of await store.listApprovalVotes(approval.id)) {
    if (events.some((e) => e.decision === "approve" && e.approver === v.approver)) continue;
    votes.push({ decision: "approve", approver: v.approver, decided_at_ms: v.decided_at_ms, verdict: await approvalSignature(store, approval, v.approver) });
  }
  const decisions = [...votes, ...events].map((d): DecisionVerification => {
    const missing = d.verdict.state === "unsigned" && required && needsSignature(d.decision);
    return {
      decision: d.decision,
      approver: d.approver,
      decided_at_ms: d.decided_at_ms,
      state: d.verdict.state,
      problem: d.verdict.state === "invalid" ? d.verdict.problem : missing ? "unsigned: the tool requires a passkey-signed decision" : null,
    };
  });
  return {
    approval_id: approval.id,
    tenant: approval.tenant,
    tool: approval.tool,
    status: approval.status,
    signature_required: required,
    decisions,
    ok: decisions.every((d) => d.problem === null),
  };
}

export function verificationText(v: ApprovalVerification): string {
  const head = `${v.approval_id}  ${v.tool}  ${v.status}${v.signature_required ? "  (signed approvals required)" : ""}  ${v.ok ? "OK" : "FAILED"}`;
  const lines = v.decisions.map((d) => `  ${d.decision.padEnd(8)} ${d.approver.padEnd(16)} ${d.state.padEnd(9)}${d.problem === null ? "" : ` ${d.problem}`}`);
  return [head, ...(lines.length === 0 ? ["  (no decisions)"] : lines)].join("\n");
}
