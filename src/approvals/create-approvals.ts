/**
 * createApprovals: the approvals API, for the gate (`runtime.approvals`, which adds `resume`)
 * and for a service that decides but never executes (an approver backend, the CLI,
 * `toolgate serve`): no handlers needed. It takes the generated validators because an edit's
 * arguments are checked against the tool's schema.
 */
import { systemClock } from "../clock.js";
import type { Clock } from "../clock.js";
import type { Manifest } from "../manifest.js";
import type { PolicyEngine } from "../policy/engine.js";
import type { Store } from "../store/store.js";
import { extendApprovals } from "./approvals-api.js";
import type { InboxApprovals } from "./approvals-api.js";
import { approvalDecisions } from "./decide.js";
import type { ApprovalDeps } from "./deps.js";

export interface ApprovalsOptions {
  readonly store: Store;
  readonly manifest: Manifest;
  readonly validators: ApprovalDeps["validators"];
  /** Its version is recorded with every decision. */
  readonly policy: PolicyEngine;
  readonly clock?: Clock;
  readonly onError?: (err: unknown) => void;
}

export function createApprovals(opts: ApprovalsOptions): InboxApprovals {
  const clock = opts.clock ?? systemClock;
  const deps: ApprovalDeps = {
    manifest: opts.manifest,
    validators: opts.validators,
    // Read at every decision: the gate passes its live dependencies, whose policy a hot reload swaps.
    get policy() {
      return opts.policy;
    },
    store: opts.store,
    clock,
    onError: opts.onError ?? ((err: unknown) => void process.stderr.write(`toolgate approvals: ${String(err)}\n`)),
  };
  return extendApprovals(approvalDecisions(deps), { store: opts.store, clock });
}
