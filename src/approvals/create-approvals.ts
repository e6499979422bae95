/**
 * createApprovals: the approvals API for a service that decides but never executes
 * (an approver backend, the CLI, `toolgate serve`): no handlers needed. It takes the
 * generated validators because an edit's arguments are checked against the tool's schema.
 */
import { randomUUID } from "node:crypto";
import type { Manifest } from "../manifest.js";
import type { PolicyEngine } from "../policy/engine.js";
import { createApprovals as createCoreApprovals } from "../runtime/approvals.js";
import { defaultMaxArgsBytes } from "../runtime/limits.js";
import { Telemetry } from "../runtime/telemetry.js";
import { systemClock } from "../runtime/types.js";
import type { Clock, RuntimeDeps, ToolValidators } from "../runtime/types.js";
import type { Store } from "../store/store.js";
import { extendApprovals } from "./approvals-api.js";
import type { InboxApprovals } from "./approvals-api.js";

export interface ApprovalsOptions {
  readonly store: Store;
  readonly manifest: Manifest;
  readonly validators: { readonly [tool: string]: ToolValidators };
  /** Its version is recorded with every decision. */
  readonly policy: PolicyEngine;
  readonly clock?: Clock;
  readonly onError?: (err: unknown) => void;
}

export function createApprovals(opts: ApprovalsOptions): InboxApprovals {
  const clock = opts.clock ?? systemClock;
  const deps: RuntimeDeps = {
    manifest: opts.manifest,
    validators: opts.validators,
    handlers: {},
    reconcilers: {},
    policy: opts.policy,
    shadowPolicy: null,
    store: opts.store,
    clock,
    leaseMarginMs: 0,
    maxArgsBytes: defaultMaxArgsBytes,
    ownerId: `approvals_${randomUUID()}`,
    pollIntervalMs: 10,
    inProgressWaitMs: 0,
    inFlight: new Map(),
    flights: new Map(),
    telemetry: new Telemetry({}),
    onError: opts.onError ?? ((err: unknown) => void process.stderr.write(`toolgate approvals: ${String(err)}\n`)),
  };
  return extendApprovals(createCoreApprovals(deps), { store: opts.store, clock });
}
