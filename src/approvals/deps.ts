/**
 * What the approvals need from their host: the gate's dependencies (`RuntimeDeps`) satisfy
 * these, and so does the standalone approvals service (`createApprovals`). Declared here so
 * the approvals depend on the store, the policy and the manifest only, never on the gate.
 */
import type { Clock } from "../clock.js";
import type { StandaloneValidator, TrustedContext } from "../generated-runtime.js";
import type { JsonObject, Manifest, ToolManifestEntry } from "../manifest.js";
import type { PolicyEngine } from "../policy/engine.js";
import type { Store } from "../store/store.js";

export interface ApprovalDeps {
  readonly manifest: Manifest;
  /** Per tool, the validator of its input: an edit's arguments are checked against it. */
  readonly validators: { readonly [tool: string]: { readonly input: StandaloneValidator } };
  /** Its versions are recorded with every request and decision. */
  readonly policy: PolicyEngine;
  readonly store: Store;
  readonly clock: Clock;
  /** Where errors that must not change an answer go. */
  readonly onError: (err: unknown) => void;
}

/** The call an approval is requested for or presented with, as the gate prepared it. */
export interface ApprovalCall {
  readonly ctx: TrustedContext;
  readonly tool: ToolManifestEntry;
  /** The validated arguments. */
  readonly args: JsonObject;
  readonly fingerprint: string;
  /** The hash of tenant, tool and the complete arguments (`argsHash`). */
  readonly args_hash: string;
  readonly operation_id: string | null;
  readonly approval_id: string | null;
}
