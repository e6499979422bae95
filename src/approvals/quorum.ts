/**
 * Quorum: a call that needs approvals from several distinct approvers, optionally covering
 * named roles ("2 approvers, one of them treasury": quorum 2, quorum_roles [treasury]). Only
 * votes bound to the approval's own argument hash and policy version count.
 */
import type { ApprovalSpec } from "../manifest.js";
import type { ApprovalRecord, ApprovalRequirement, ApprovalVote } from "../store/store.js";

export interface QuorumSpec {
  /** Distinct approvers needed. */
  readonly need: number;
  /** Roles the quorum must cover, each by a different approver. */
  readonly roles: readonly string[];
}

export interface QuorumState extends QuorumSpec {
  /** The approvers whose votes count, in the order they voted. */
  readonly approvers: readonly { readonly approver: string; readonly roles: readonly string[]; readonly at_ms: number }[];
  readonly have: number;
  /** Roles no counted approver covers yet (with the others assigned their own role). */
  readonly missing_roles: readonly string[];
  readonly complete: boolean;
}

/** The tool's quorum, or null when one approval is enough. */
export function quorumOf(spec: Pick<ApprovalSpec, "quorum" | "quorum_roles"> | null | undefined): QuorumSpec | null {
  const need = spec?.quorum ?? 1;
  const roles = spec?.quorum_roles ?? [];
  if (need <= 1 && roles.length === 0) return null;
  return { need: Math.max(need, roles.length), roles };
}

/**
 * What an approval needs: the tool's spec and the policy's demand for this call together, the
 * stricter of each (the larger quorum, every role of both, signed if either says so).
 */
export function effectiveApproval(
  spec: Pick<ApprovalSpec, "quorum" | "quorum_roles" | "signed"> | null | undefined,
  demand: Pick<ApprovalRequirement, "quorum" | "quorum_roles" | "signed"> | null,
): { readonly quorum: QuorumSpec | null; readonly signed: boolean } {
  return {
    quorum: quorumOf({ quorum: Math.max(spec?.quorum ?? 1, demand?.quorum ?? 1), quorum_roles: [...new Set([...(spec?.quorum_roles ?? []), ...(demand?.quorum_roles ?? [])])] }),
    signed: spec?.signed === true || demand?.signed === true,
  };
}

/** The most roles of `roles` that distinct voters can cover (each voter covers at most one). */
function coveredRoles(roles: readonly string[], voters: readonly (readonly string[])[]): string[] {
  let best: string[] = [];
  const used = new Set<number>();
  const walk = (i: number, covered: string[]): void => {
    if (covered.length > best.length) best = [...covered];
    if (i === roles.length || best.length === roles.length) return;
    for (let v = 0; v < voters.length; v++) {
      if (used.has(v) || !voters[v]!.includes(roles[i]!)) continue;
      used.add(v);
      walk(i + 1, [...covered, roles[i]!]);
      used.delete(v);
    }
    walk(i + 1, covered);
  };
  walk(0, []);
  return best;
}

export function quorumState(spec: QuorumSpec, approval: ApprovalRecord, votes: readonly ApprovalVote[]): QuorumState {
  const counted = votes.filter((v) => v.approval_id === approval.id && v.tenant === approval.tenant && v.args_hash === approval.args_hash && v.policy_version === approval.policy_version);
  const seen = new Set<string>();
  const approvers = counted
    .filter((v) => (seen.has(v.approver) ? false : (seen.add(v.approver), true)))
    .map((v) => ({ approver: v.approver, roles: [...v.approver_roles], at_ms: v.decided_at_ms }));
  const covered = coveredRoles(spec.roles, approvers.map((a) => a.roles));
  const missing = [...spec.roles];
  for (const r of covered) missing.splice(missing.indexOf(r), 1);
  return { ...spec, approvers, have: approvers.length, missing_roles: missing, complete: approvers.length >= spec.need && missing.length === 0 };
}

/** "1 of 2 approvals (bob); still needed: treasury" */
export function quorumText(q: QuorumState): string {
  const who = q.approvers.length === 0 ? "" : ` (${q.approvers.map((a) => a.approver).join(", ")})`;
  const roles = q.missing_roles.length === 0 ? "" : `; still needed: an approver with role ${q.missing_roles.join(", ")}`;
  return `${q.have} of ${q.need} approvals${who}${roles}`;
}
