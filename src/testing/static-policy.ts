/**
 * A PolicyEngine from a plain function, for unit tests of single runtime phases.
 * End-to-end tests use the compiled policy.wasm instead.
 */
import { toDecision } from "../policy/engine.js";
import type { PolicyDecision, PolicyEngine, PolicyInput } from "../policy/engine.js";

export function staticPolicy(decide: (input: PolicyInput) => unknown, version = "static-policy"): PolicyEngine {
  return {
    version,
    async evaluate(input: PolicyInput): Promise<PolicyDecision> {
      return toDecision(decide(input));
    },
  };
}
