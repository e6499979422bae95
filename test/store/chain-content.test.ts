/**
 * The audit chain's content of a decision-log entry is built from the entry as the store reads
 * it back (rows.ts `decisionRecordOf`); its hash must stay what the chain's writers stored
 * before, or every existing chain would stop verifying. The expected hashes were computed by
 * the content builder the chains were written with.
 */
import { describe, expect, it } from "vitest";
import { decisionContent } from "../../src/store/chain/content.js";
import { contentHash } from "../../src/store/chain/link.js";
import { decisionRecordOf, decisionValues, toDecisionRecord } from "../../src/store/rows.js";
import type { DecisionLogEntry } from "../../src/store/store.js";

const minimal: DecisionLogEntry = {
  at_ms: 1_700_000_000_123, tenant: "t1", run_id: "r1", user: "alice", tool: "send", operation_id: null, fingerprint: null,
  decision: "allow", reason: null, policy_version: null, outcome: "success", outcome_reason: null,
};
const full: DecisionLogEntry = {
  ...minimal, operation_id: "op-1", fingerprint: "fp", reason: "ok", policy_version: "v1", outcome_reason: "done", path: "toolgate/authz/decision",
  input: { args: { amount: 5 } }, result: { allow: true, reason: "ok", requires_approval: false }, erased: ["/input/args/card"], eval_ns: 1234,
  shadow: { policy_version: "v2", decision: "deny", reason: "no", result: null, eval_ns: 9, disagrees: true },
  error: { error_id: "e_1", treated_as: "permanent", matched: null, name: "Error", code: null, message: "boom", stack: null, erased: [] },
  expires_at_ms: 1_800_000_000_000,
};

describe("audit chain content of a decision", () => {
  it("hashes as the chains already stored were hashed", () => {
    expect(contentHash(decisionContent(minimal, "d-min"))).toBe("4c34f2c777c3e546072793dc74961b896618b11692153facfe3f9f83017e84a5");
    expect(contentHash(decisionContent(full, "d-full"))).toBe("d5526efaa2a02917d6047741cc77e9e8e2ecfcf0c2a36ef9582a3322bbb8ca97");
  });

  it("is the same from the entry written and from its row read back", () => {
    for (const [e, id] of [[minimal, "d-min"], [full, "d-full"]] as const) {
      // The column values the store writes, read back as a row (SQLite's text JSON).
      const readBack = toDecisionRecord(decisionValues({ ...e, decision_id: id }), id, (t: string) => JSON.parse(t) as unknown);
      expect(readBack).toEqual(decisionRecordOf(e, id));
      expect(contentHash(decisionContent(readBack, id))).toBe(contentHash(decisionContent(e, id)));
    }
  });
});
