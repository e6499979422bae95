export type { PolicyApprovalInput, PolicyDecision, PolicyEngine, PolicyInput } from "./engine.js";
export { deny, toDecision } from "./engine.js";
export { isPolicyLoadError, loadOpaWasmEngine, loadOpaWasmEngineFromFiles, PolicyLoadError, policyVersion } from "./opa-wasm-engine.js";
export type { OpaWasmEngineOptions } from "./opa-wasm-engine.js";
export { loadPolicyFile, readBundleFiles } from "./policy-file.js";
export type { PolicyFileOptions } from "./policy-file.js";
