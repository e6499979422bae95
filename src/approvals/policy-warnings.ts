/**
 * The warnings an approve or edit carries about policy versions: decided under other versions
 * than the request's (`versionWarnings`), or than the gates run now (`currentPolicyWarnings`,
 * against the record `Store.setCurrentPolicy` keeps).
 */
import type { PolicyEngine } from "../policy/engine.js";
import { versionsOf } from "../policy/version.js";
import type { ApprovalRecord, CurrentPolicyRecord } from "../store/store.js";

/** Warnings about the policy versions a decision is made under, compared with the request's. */
export function versionWarnings(policy: PolicyEngine, approval: ApprovalRecord): string[] {
  const now = versionsOf(policy);
  const out: string[] = [];
  if (approval.policy_code_version !== now.code_version) {
    out.push(
      `policy_code_changed: this approval was requested under policy code ${approval.policy_code_version || "(unknown)"} and is decided under ${now.code_version}; the shipped policy does not accept an approval across a code change, so it will not authorise the call unless the gate runs ${now.code_version}`,
    );
  }
  if (approval.policy_data_version !== now.data_version) {
    out.push(
      `policy_data_changed: this approval was requested under policy data ${approval.policy_data_version || "(unknown)"} and is decided under ${now.data_version}; data rules (limits, roles) are checked again when the call commits`,
    );
  }
  return out;
}

/** Warnings for a decision made under `approverPolicy` when the gates run `current`. */
export function currentPolicyWarnings(approverPolicy: PolicyEngine, current: CurrentPolicyRecord | null): string[] {
  if (current === null) return [];
  const mine = versionsOf(approverPolicy);
  const since = new Date(current.updated_at_ms).toISOString();
  const out: string[] = [];
  if (current.code_version !== mine.code_version) {
    out.push(
      `policy_code_not_current: you decide under policy code ${mine.code_version}, but the gates run ${current.code_version} (in force since ${since}); the shipped policy does not accept an approval decided under other policy code, so this one will not authorise the call: decide again from a process that runs the gates' policy`,
    );
  }
  if (current.data_version !== mine.data_version) {
    out.push(
      `policy_data_not_current: you decide under policy data ${mine.data_version}, but the gates run ${current.data_version} (in force since ${since}); the call is checked again against the gates' data (limits, roles) when it commits`,
    );
  }
  return out;
}
