/**
 * Strict builtin errors: with the engine's `strictBuiltinErrors` (per load or per
 * evaluation), a builtin error anywhere in the evaluation denies with
 * `policy_evaluation_error` and names the failing builtin, never its operands; without
 * it the failing expression is undefined, as in OPA, so a deny rule that fails lets the
 * default allow stand. Native builtins (to_number, count) and host builtins
 * (regex.match) alike, on both engines, from one compiled module.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import type { JsonObject } from "../../src/manifest.js";
import type { EvaluateOptions, PolicyDecision, PolicyInput } from "../../src/policy/engine.js";
import { loadFastEngine } from "../../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";
import { evaluationErrorText } from "../../src/policy/strict-errors.js";

const ENTRYPOINT = "toolgate/authz/decision";

const POLICY = `package toolgate.authz
import rego.v1

default decision := {"allow": true, "reason": "ok", "requires_approval": false}

decision := {"allow": false, "reason": "amount_too_large", "requires_approval": false} if {
	to_number(input.args.amount) > 100
}

decision := {"allow": false, "reason": "memo_rejected", "requires_approval": false} if {
	regex.match(input.args.memo_pattern, "memo")
}

decision := {"allow": false, "reason": "too_many_items", "requires_approval": false} if {
	count(input.args.items) > 10
}
`;

const wasm = ((): Uint8Array => {
  const r = compilePolicy({ modules: [{ file: "policies/strict.rego", source: POLICY }], entrypoints: [ENTRYPOINT] });
  if (r.wasm === null) throw new Error(r.errors.map(formatDiagnostic).join("\n"));
  return r.wasm;
})();

const input = (args: JsonObject): PolicyInput => ({
  tool: "reserve_funds",
  effect: "reversible_write",
  args,
  fingerprint: "f",
  args_hash: "h",
  operation_id: "op-1",
  principal: { tenant: "t", user: "u", roles: [] },
  context: {},
  approval: null,
  now_ms: 0,
  policy_version: "v",
  policy_code_version: "c",
  policy_data_version: "d",
});

type Decide = (args: JsonObject, options?: EvaluateOptions) => PolicyDecision;
const engines: readonly [string, (strict: boolean) => Promise<Decide>][] = [
  ["SDK engine", async (strict) => {
    const e = await loadOpaWasmEngine({ wasm, entrypoint: ENTRYPOINT, strictBuiltinErrors: strict });
    return (args, options) => e.decide(input(args), options);
  }],
  ["fast engine", async (strict) => {
    const e = await loadFastEngine({ wasm, entrypoint: ENTRYPOINT, strictBuiltinErrors: strict });
    return (args, options) => e.decide(input(args), options);
  }],
];

const fine = { amount: "5", memo_pattern: "^x", items: [1] };
const allowed = { allow: true, reason: "ok", requires_approval: false };
const failed = (error: string): PolicyDecision => ({ allow: false, reason: "policy_evaluation_error", requires_approval: false, error });

describe("strict builtin errors", () => {
  for (const [name, load] of engines) {
    it(`a builtin error in a deny rule denies the call with policy_evaluation_error under strict errors (${name})`, async () => {
      const decide = await load(true);
      expect(decide(fine)).toEqual(allowed);
      expect(decide({ ...fine, amount: "(" })).toEqual(failed("eval_builtin_error: to_number"));
      expect(decide({ ...fine, memo_pattern: "[" })).toEqual(failed("eval_builtin_error: regex.match"));
      expect(decide({ ...fine, items: 7 })).toEqual(failed("eval_type_error: count"));
      // The engine keeps deciding, and a deny the policy reaches is still its own.
      expect(decide({ ...fine, amount: "500" })).toEqual({ allow: false, reason: "amount_too_large", requires_approval: false });
    });

    it(`without strict errors a failing builtin is undefined, as in OPA (${name})`, async () => {
      const decide = await load(false);
      expect(decide({ ...fine, amount: "(" })).toEqual(allowed);
      expect(decide({ ...fine, memo_pattern: "[" })).toEqual(allowed);
      expect(decide({ ...fine, items: 7 })).toEqual(allowed);
    });

    it(`the mode can be set per evaluation, in both directions (${name})`, async () => {
      const lenient = await load(false);
      expect(lenient({ ...fine, amount: "(" }, { strictBuiltinErrors: true })).toEqual(failed("eval_builtin_error: to_number"));
      expect(lenient({ ...fine, amount: "(" })).toEqual(allowed);
      const strict = await load(true);
      expect(strict({ ...fine, memo_pattern: "[" }, { strictBuiltinErrors: false })).toEqual(allowed);
      expect(strict({ ...fine, memo_pattern: "[" })).toEqual(failed("eval_builtin_error: regex.match"));
    });
  }

  it("the logged error names the builtin and never its operands", () => {
    expect(evaluationErrorText(new Error('policies/a.rego:3:2: eval_builtin_error: to_number: strconv.ParseFloat: parsing "secret-iban": invalid syntax'))).toBe("eval_builtin_error: to_number");
    expect(evaluationErrorText(new Error("unknown:0:0: eval_conflict_error: complete rules must not produce multiple outputs"))).toBe("eval_conflict_error: complete rules must not produce multiple outputs");
  });
});
