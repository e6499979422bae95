/**
 * `toolgate/internal`: the building blocks toolgate's own entries, CLI, tests and
 * benchmarks share (claim planning, the decision batcher, the fast engine's class, the
 * fuel budget check, decision-log rows, replay). Not a public API: names and shapes
 * change without notice. Applications use the root entry.
 */
export { planClaim, planRecord } from "./store/claim.js";
export type { ClaimPlan, RecordPlan } from "./store/claim.js";
export { DecisionBatch } from "./store/decision-batch.js";
export { FastPolicy } from "./policy/fast-engine.js";
export { BUDGET_EXCEEDED, checkPolicyBudget } from "./policy/budget.js";
export { deny, toDecision } from "./policy/engine.js";
export { readPolicyFiles } from "./policy/opa-wasm-engine.js";
export { readBundleFiles } from "./policy/policy-file.js";
export { policyCodeVersion, policyDataVersion, versionsOf } from "./policy/version.js";
export { argsHash, fingerprint } from "./call-data/fingerprint.js";
export { decisionEntry, defaultDecisionLogRetentionMs, eraseSensitive, opaDecisionEvent } from "./runtime/decision-log.js";
export { normalizeEnvelope } from "./runtime/envelope.js";
export { parseTraceparent } from "./runtime/telemetry.js";
export { systemClock } from "./runtime/types.js";
export { replayDecisions, replayFails } from "./runtime/replay.js";
export type { ReplayChange, ReplayFailOn, ReplayGroup, ReplayReport, ReplaySide } from "./runtime/replay.js";
export { decideAsApprover, parseDecision } from "./approvals/decide-as.js";
