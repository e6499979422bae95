/**
 * The policy in force (and the shadow candidate), swapped atomically: each call
 * takes one snapshot of the runtime's dependencies when it starts and uses that
 * policy from authorize to commit, while long-lived parts (approvals) read the
 * current one. Enters: engines. Leaves: dependency snapshots.
 */
import type { PolicyEngine } from "../policy/engine.js";
import type { RuntimeDeps } from "./types.js";

export class PolicySwapError extends Error {
  override name = "PolicySwapError";
}
export const isPolicySwapError = (e: unknown): e is PolicySwapError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "PolicySwapError";

/** A usable engine: an object with a non-empty string version and an evaluate function. */
export function checkEngine(engine: unknown, what: string): PolicyEngine {
  const e = engine as { version?: unknown; evaluate?: unknown } | null;
  if (typeof e !== "object" || e === null || typeof e.version !== "string" || e.version === "" || typeof e.evaluate !== "function") {
    throw new PolicySwapError(`${what}: expected a PolicyEngine (a non-empty string version and an evaluate function)`);
  }
  return engine as PolicyEngine;
}

export type SharedDeps = Omit<RuntimeDeps, "policy" | "shadowPolicy">;

export class PolicyHolder {
  #snapshot: RuntimeDeps;
  readonly #shared: SharedDeps;
  /** Reads the policy in force at the moment of each access. */
  readonly live: RuntimeDeps;

  constructor(shared: SharedDeps, policy: PolicyEngine, shadow: PolicyEngine | null) {
    this.#shared = shared;
    this.#snapshot = { ...shared, policy, shadowPolicy: shadow };
    const holder = this;
    this.live = Object.defineProperties(
      { ...shared } as RuntimeDeps,
      {
        policy: { get: () => holder.#snapshot.policy, enumerable: true },
        shadowPolicy: { get: () => holder.#snapshot.shadowPolicy, enumerable: true },
      },
    );
  }

  /** The dependencies one call uses from start to end. */
  get snapshot(): RuntimeDeps {
    return this.#snapshot;
  }

  setPolicy(engine: PolicyEngine): void {
    this.#snapshot = { ...this.#shared, policy: checkEngine(engine, "setPolicy"), shadowPolicy: this.#snapshot.shadowPolicy };
  }

  setShadowPolicy(engine: PolicyEngine | null): void {
    const shadow = engine === null ? null : checkEngine(engine, "setShadowPolicy");
    this.#snapshot = { ...this.#shared, policy: this.#snapshot.policy, shadowPolicy: shadow };
  }
}
