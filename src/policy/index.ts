export type { EvaluateOptions, PolicyApprovalInput, PolicyDecision, PolicyEngine, PolicyInput } from "./engine.js";
export { BUDGET_EXCEEDED, checkPolicyBudget, DEFAULT_POLICY_BUDGET, isPolicyBudgetError, PolicyBudgetError } from "./budget.js";
export { deny, toDecision } from "./engine.js";
export { isPolicyLoadError, loadOpaWasmEngine, loadOpaWasmEngineFromFiles, PolicyLoadError } from "./opa-wasm-engine.js";
export { policyCodeVersion, policyDataVersion, policyVersion, versionsOf } from "./version.js";
export type { PolicyVersions } from "./version.js";
export type { OpaWasmEngineOptions } from "./opa-wasm-engine.js";
export { loadPolicyFile, readBundleFiles } from "./policy-file.js";
export type { PolicyFileOptions } from "./policy-file.js";
