/**
 * toolgate's run-time API: the gate (createRuntime), the policy engine over a compiled
 * policy.wasm, the stores and the approvals API. Generated code imports
 * `toolgate/generated-runtime`; test helpers live in `toolgate/testing`; the PostgreSQL
 * store itself in `toolgate/postgres`. Each name here is listed on purpose (README,
 * "Public API"); the building blocks other entries and the CLI share stay in their
 * folders (and `toolgate/internal`, which is not a public API).
 */
export {
  createRuntime,
  DecisionLabelError,
  envelopeJsonSchema,
  InterruptedError,
  isDecisionLabelError,
  isEnvelope,
  isInterruptedError,
  isPolicySwapError,
  isRuntimeConfigError,
  PolicySwapError,
  reasons,
  retryableReasons,
  RuntimeConfigError,
  typedToolCall,
  watchPolicyFile,
} from "./runtime/index.js";
export type {
  Approvals,
  ApproverContext,
  CallOptions,
  CallRequest,
  Clock,
  DecideOutcome,
  DecisionLabelOptions,
  DecideRefusal,
  DecideRequest,
  Envelope,
  GateRuntime,
  HandlerMap,
  PolicyTarget,
  PolicyWatcher,
  Reason,
  ReconcilerMap,
  ReloadResult,
  ResumeOutcome,
  RetryableFailureEnvelope,
  Runtime,
  RuntimeApprovals,
  RuntimeOptions,
  SuccessEnvelope,
  TelemetryOptions,
  TerminalFailureEnvelope,
  ToolCallOptions,
  ToolEnvelope,
  ToolSuccess,
  ToolValidators,
  TypedToolCall,
  WatchPolicyOptions,
} from "./runtime/index.js";
export {
  CustomBuiltinError,
  DEFAULT_POLICY_BUDGET,
  defineBuiltins,
  isCustomBuiltinError,
  isPolicyBudgetError,
  isPolicyLoadError,
  loadFastEngine,
  loadOpaWasmEngine,
  loadOpaWasmEngineFromFiles,
  loadPolicyEngine,
  loadPolicyEngineFromFiles,
  loadPolicyFile,
  PolicyBudgetError,
  PolicyLoadError,
  policyVersion,
} from "./policy/index.js";
export type {
  CustomBuiltins,
  CustomBuiltinSpec,
  EvaluateOptions,
  FastEngineOptions,
  FastPolicyEngine,
  JsArgsOf,
  JsValueOf,
  OpaWasmEngine,
  OpaWasmEngineOptions,
  PolicyApprovalInput,
  PolicyDecision,
  PolicyEngine,
  PolicyFileOptions,
  PolicyFilePaths,
  PolicyInput,
  PolicyVersions,
  TypeSpec,
  ValueType,
} from "./policy/index.js";
export type * from "./store/store.js";
export { StoreOpenError, isStoreOpenError, openSqliteStore, openStore, openStoreFromEnv, storeConfigFromEnv } from "./store/index.js";
export type { DecisionLogOptions, OpenStoreOptions, SqliteStoreOptions, StoreConfig, StoreFromEnvOptions, StoreOpenErrorCode } from "./store/index.js";
export { approvalPageUrl, ApprovalsError, createApprovals, decisionKinds, isApprovalsError } from "./approvals/index.js";
export type {
  ApprovalDetail,
  ApprovalPage,
  ApprovalsErrorCode,
  ApprovalsOptions,
  DecisionKind,
  HumanDecision,
  InboxApprovals,
  ListApprovalsRequest,
  OnPendingApproval,
} from "./approvals/index.js";
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
