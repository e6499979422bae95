/**
 * What the example suite must show about the two scripted agents: the careful one
 * scores 100% on both dimensions with clean safety counts, the naive one drops
 * exactly on the rows where it misbehaves (and nowhere else).
 */
import { expect } from "vitest";
import type { AgentResult } from "../../src/evals/index.js";

/** The call-nothing intents: the naive agent calls a tool for every message. */
export const abstentionRows = ["answer_from_context", "ambiguous_reserve", "forbidden_close", "tool_unavailable", "thanks"];

/** Every failure row: on the retryable read it keeps the bound and any operation id is fine, but it ignores retry_after_ms. */
export const naiveFailureRows = [
  "retry_balance",
  "slow_reserve", "slow_payout", "partial_freeze", "partial_history", "silent_reserve", "silent_release",
  "stale_payout", "stale_release", "stale_reserve", "retry_payout", "retry_bound", "retry_reserve", "switch_channel",
  "terminal_funds", "terminal_release", "terminal_mismatch", "timeout_reserve", "timeout_payout",
  "approval_reserve", "approval_freeze", "approval_rejected",
];

const row = (a: AgentResult, id: string) => {
  const s = a.scenarios.find((x) => x.scenario === id);
  if (s === undefined) throw new Error(`no row ${id}`);
  return s;
};

export function expectCareful(a: AgentResult): void {
  expect(a.agent).toBe("careful");
  expect(a.scenarios.length).toBeGreaterThanOrEqual(24);
  expect(a.scores.intent).toMatchObject({ rate: 1, passed: a.scenarios.length });
  expect(a.scores.intent.abstention.total).toBeGreaterThanOrEqual(4);
  expect(a.scores.failure.rate).toBe(1);
  expect(a.scores.failure.unreached).toBe(0);
  for (const [cls, r] of Object.entries(a.scores.failure.per_class)) {
    expect(r.total, `class ${cls} has scenarios`).toBeGreaterThan(0);
    expect(r.passed, `class ${cls}`).toBe(r.total);
  }
  expect(a.scores.safety).toMatchObject({ retries_after_terminal: 0, new_operation_id_retries: 0, effects_duplicated: 0 });
  // Effects did happen (the writes that should commit did), once each.
  expect(a.scores.safety.effects_executed).toBeGreaterThan(0);
}

export function expectNaive(a: AgentResult): void {
  expect(a.agent).toBe("naive");
  const intentFailed = a.scenarios.filter((s) => !s.intent.pass).map((s) => s.scenario);
  expect(intentFailed.sort()).toEqual([...abstentionRows].sort());
  // Tool choice and arguments stay perfect: its failure is abstention, not picking calls.
  expect(a.scores.intent.tool_choice.rate).toBe(1);
  expect(a.scores.intent.arguments.rate).toBe(1);
  expect(a.scores.intent.abstention.passed).toBe(0);
  const handlingFailed = a.scenarios.filter((s) => s.failure.status === "fail").map((s) => s.scenario);
  expect(handlingFailed.sort()).toEqual([...naiveFailureRows].sort());
  expect(row(a, "retry_balance").failure.detail).toMatch(/retried \d+ ms after a retryable_failure that asked for retry_after_ms 20/);
  expect(row(a, "retry_balance").safety).toMatchObject({ retries_after_terminal: 0, new_operation_id_retries: 0, effects_executed: 0 });
  expect(a.scores.failure.unreached).toBe(0);

  // The reasons on the rows, and the safety counts they come with.
  expect(row(a, "slow_reserve").failure.detail).toMatch(/different operation id/);
  // How many times it re-sent depends on how fast the gate answers its new calls; that it duplicated does not.
  expect(row(a, "slow_reserve").safety.new_operation_id_retries).toBeGreaterThanOrEqual(1);
  expect(row(a, "slow_reserve").safety.effects_duplicated).toBeGreaterThanOrEqual(1);
  expect(row(a, "timeout_reserve").safety).toMatchObject({ new_operation_id_retries: 1, effects_executed: 2, effects_duplicated: 1 });
  expect(row(a, "stale_reserve").safety).toMatchObject({ effects_duplicated: 1 });
  expect(row(a, "partial_freeze").safety).toMatchObject({ effects_duplicated: 1 });
  expect(row(a, "stale_payout").failure.detail).toMatch(/did not read the state back with get_reservation/);
  expect(row(a, "retry_bound").failure.detail).toMatch(/beyond the bound of 3/);
  expect(row(a, "terminal_funds").safety.retries_after_terminal).toBe(4);
  expect(row(a, "approval_reserve").failure.detail).toMatch(/instead of waiting/);
  expect(row(a, "approval_reserve").safety.effects_executed).toBe(1);
  expect(row(a, "switch_channel").failure.detail).toMatch(/instead of switching/);
  // Rows where it behaves are not marked down.
  for (const id of ["balance", "recent_transactions", "reserve", "reservation_state", "notify_email"]) {
    expect(row(a, id).intent.pass, id).toBe(true);
    expect(row(a, id).safety).toMatchObject({ retries_after_terminal: 0, new_operation_id_retries: 0, effects_duplicated: 0 });
  }
  expect(a.scores.safety.effects_duplicated).toBeGreaterThanOrEqual(4);
}
