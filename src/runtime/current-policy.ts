/**
 * The policy a gate runs, recorded in the store (`Store.setCurrentPolicy`) so that an approver
 * process can compare its own policy versions with the gates' (`currentPolicyWarnings`).
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

/** Warnings for a decision made under `approverPolicy` when the gates run `current`. */
export function currentPolicyWarnings(approverPolicy: PolicyEngine, current: CurrentPolicyRecord | null): string[] {
  if (current === null) return [];
  const mine = versionsOf(approverPolicy);
  const since = new Date(current.updated_at_ms).toISOString();
  const out: string[] = [];
  if (current.code_version !== mine.code_version) {
    out.push(
      `policy_code_not_current: you decide under policy code ${mine.code_version}, but the gates run ${current.code_version} (in force since ${since}); the shipped policy does not accept an approval decided under other policy code, so this one will not authorise the call: decide again from a process that runs the gates' policy`,
    );
  }
  if (current.data_version !== mine.data_version) {
    out.push(
      `policy_data_not_current: you decide under policy data ${mine.data_version}, but the gates run ${current.data_version} (in force since ${since}); the call is checked again against the gates' data (limits, roles) when it commits`,
    );
  }
  return out;
}
