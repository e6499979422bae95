/**
 * toolgate's run-time API: the gate (createRuntime), the policy engine over a compiled
 * policy.wasm, and the stores. Generated code imports `toolgate/generated-runtime`;
 * test helpers live in `toolgate/testing`.
 */
export * from "./runtime/index.js";
export * from "./policy/index.js";
export * from "./store/index.js";
export * from "./approvals/index.js";
export { isPermanentError, isTransientError, permanent, PermanentError, transient, TransientError, type TransientOptions } from "./runtime/handler-errors.js";
export type {
  HandlerResult,
  InvokeContext,
  StandaloneValidator,
  ToolHandler,
  ToolReconciler,
  TrustedContext,
} from "./generated-runtime.js";
export type { Effect, JsonObject, JsonValue, Manifest, ToolManifestEntry } from "./manifest.js";
