/**
 * One policy evaluation as the decision log records it: the input, the result,
 * the evaluation time, and (when the runtime has a shadow policy) what the
 * candidate would have decided for the same input. The enforced decision is
 * computed first and never depends on the shadow. Enters: deps and the policy
 * input. Leaves: an Evaluation; never throws (errors fail closed).
 */
import { deny } from "../policy/engine.js";
import type { EvaluateOptions, PolicyDecision, PolicyEngine, PolicyInput } from "../policy/engine.js";
import type { PolicyDecisionKind, ShadowDecision } from "../store/store.js";
import type { RuntimeDeps } from "./types.js";

export interface Evaluation {
  readonly input: PolicyInput;
  readonly result: PolicyDecision;
  readonly eval_ns: number;
  readonly shadow: ShadowDecision | null;
}

export const decisionKind = (d: PolicyDecision): Exclude<PolicyDecisionKind, "not_evaluated"> =>
  d.allow ? "allow" : d.requires_approval ? "approval_required" : "deny";

async function timed(engine: PolicyEngine, input: PolicyInput, options: EvaluateOptions): Promise<{ result: PolicyDecision; ns: number }> {
  const start = process.hrtime.bigint();
  let result: PolicyDecision;
  try {
    // A runaway policy is stopped by the engine at its budget and answered with deny("policy_budget_exceeded").
    result = await engine.evaluate(input, options);
  } catch {
    result = deny("policy_evaluation_error"); // fail closed, whatever the engine does
  }
  return { result, ns: Number(process.hrtime.bigint() - start) };
}

const noOptions: EvaluateOptions = Object.freeze({});

const strictOptions: EvaluateOptions = Object.freeze({ strictBuiltinErrors: true });

function evaluateOptions(deps: RuntimeDeps): EvaluateOptions {
  // tools.yaml `policy.strict_builtin_errors`: a builtin error denies instead of being undefined.
  const strict = deps.manifest.policy.strict_builtin_errors === true;
  if (deps.policyBudget === undefined) return strict ? strictOptions : noOptions;
  return strict ? { budget: deps.policyBudget, strictBuiltinErrors: true } : { budget: deps.policyBudget };
}

export async function evaluatePolicy(deps: RuntimeDeps, input: PolicyInput): Promise<Evaluation> {
  const options = evaluateOptions(deps);
  // The enforced policy is timed here rather than through timed(): one async hop less per call.
  const start = process.hrtime.bigint();
  let result: PolicyDecision;
  try {
    result = await deps.policy.evaluate(input, options);
  } catch {
    result = deny("policy_evaluation_error"); // fail closed, whatever the engine does
  }
  const enforced = { result, ns: Number(process.hrtime.bigint() - start) };
  deps.telemetry.policyEvaluated(enforced.ns);
  const candidate = deps.shadowPolicy;
  if (candidate === null) return { input, result: enforced.result, eval_ns: enforced.ns, shadow: null };
  // The same input, policy_version included: the question is what the candidate decides for this very call.
  const s = await timed(candidate, input, options);
  const kind = decisionKind(s.result);
  return {
    input,
    result: enforced.result,
    eval_ns: enforced.ns,
    shadow: {
      policy_version: candidate.version,
      decision: kind,
      reason: s.result.reason,
      result: { allow: s.result.allow, reason: s.result.reason, requires_approval: s.result.requires_approval },
      eval_ns: s.ns,
      disagrees: kind !== decisionKind(enforced.result),
    },
  };
}
