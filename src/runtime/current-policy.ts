/**
 * The policy a gate runs, recorded in the store (`Store.setCurrentPolicy`) so that an approver
 * process can compare its own policy versions with the gates' (`currentPolicyWarnings` in
 * src/approvals/policy-warnings.ts).
 * A gate writes its policy before its first call answers and again on every swap
 * (`setPolicy`, hot reload). An approver that only decides never writes: its policy may be
 * older than the gates', and recording it would hide exactly that difference.
 */
import type { PolicyEngine } from "../policy/engine.js";
import { versionsOf } from "../policy/version.js";
import type { CurrentPolicyRecord, CurrentPolicyStore } from "../store/store.js";
import type { Clock } from "./types.js";

export interface PolicyPublisherDeps {
  readonly store: CurrentPolicyStore;
  readonly entrypoint: string;
  readonly owner: string;
  readonly clock: Clock;
  readonly onError: (err: unknown) => void;
}

export class PolicyPublisher {
  readonly #deps: PolicyPublisherDeps;
  #engine: PolicyEngine | null = null;
  #written: Promise<void> = Promise.resolve();
  /** The write for #engine has settled: callers need not wait for it. */
  #settled = false;
  // Writes of one process go one after the other, so a swap is never overtaken by an older write.
  #tail: Promise<void> = Promise.resolve();

  constructor(deps: PolicyPublisherDeps) {
    this.#deps = deps;
  }

  /**
   * Records `engine` as the gates' current policy unless this process already did; the promise
   * settles when the write has (never rejects: a failed write is reported and tried again by
   * the next call), null when it already has.
   */
  publish(engine: PolicyEngine): Promise<void> | null {
    if (engine === this.#engine) return this.#settled ? null : this.#written;
    this.#engine = engine;
    this.#settled = false;
    const d = this.#deps;
    const v = versionsOf(engine);
    const rec: CurrentPolicyRecord = {
      entrypoint: d.entrypoint,
      version: v.version,
      code_version: v.code_version,
      data_version: v.data_version,
      owner: d.owner,
      updated_at_ms: d.clock.now(),
    };
    const written = this.#tail.then(() => d.store.setCurrentPolicy(rec));
    this.#tail = written.catch(() => undefined);
    this.#written = written.then(
      () => {
        if (this.#engine === engine) this.#settled = true;
      },
      (err: unknown) => {
        d.onError(err);
        if (this.#engine === engine) this.#engine = null;
      },
    );
    return this.#written;
  }
}
