/**
 * tools.yaml `policy.strict_builtin_errors`, end to end: under `default allow`, a deny
 * rule whose body hits a builtin error (`to_number` of a memo that is not a number)
 * denies the call with `terminal_failure` `policy_evaluation_error`; the handler never
 * runs; the decision log records a deny with that reason and the failing builtin, but
 * not the (sensitive) memo. Without the setting the behaviour is OPA's: the rule is
 * undefined and the call runs. On both engines and both stores.
 */
import { expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import { manifest } from "../../generated/index.js";
import type { Manifest } from "../../src/manifest.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { loadFastEngine } from "../../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";
import { alice, ENTRYPOINT, makeGate, reserveArgs } from "./harness.js";

const DEFAULT_ALLOW = `package toolgate.authz
import rego.v1

default decision := {"allow": true, "reason": "default_allow", "requires_approval": false}

decision := {"allow": false, "reason": "memo_amount_too_high", "requires_approval": false} if {
	to_number(input.args.memo) > 100
}
`;
import { describeEachStore } from "../helpers/stores.js";

const wasm = ((): Uint8Array => {
  const r = compilePolicy({ modules: [{ file: "policies/default_allow.rego", source: DEFAULT_ALLOW }], entrypoints: [ENTRYPOINT] });
  if (r.wasm === null) throw new Error(r.errors.map(formatDiagnostic).join("\n"));
  return r.wasm;
})();

const engines: readonly [string, () => Promise<PolicyEngine>][] = [
  ["SDK engine", () => loadOpaWasmEngine({ wasm, entrypoint: ENTRYPOINT })],
  ["fast engine", () => loadFastEngine({ wasm, entrypoint: ENTRYPOINT })],
];

const strictManifest: Manifest = { ...manifest, policy: { entrypoint: manifest.policy.entrypoint, strict_builtin_errors: true } };
const lenientManifest: Manifest = { ...manifest, policy: { entrypoint: manifest.policy.entrypoint } };
const SECRET_MEMO = "(not-a-number secret 4711";

describeEachStore("strict builtin errors", (stores) => {
  for (const [name, load] of engines) {
    it(`a builtin error in a deny rule denies the call with policy_evaluation_error, logged without the operands (${name})`, async () => {
      let ran = 0;
      const gate = makeGate({
        policy: await load(),
        store: await stores.fresh(),
        manifest: strictManifest,
        handlers: (base) => ({ reserve_funds: (args, ctx) => { ran++; return base.reserve_funds(args, ctx); } }),
      });
      const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000, { memo: SECRET_MEMO }), operation_id: "op-strict" });
      expect(env).toMatchObject({ outcome: "terminal_failure", reason: "policy_evaluation_error", message: expect.stringContaining("eval_builtin_error: to_number") });
      expect(JSON.stringify(env)).not.toContain("4711");
      expect(ran).toBe(0);
      const [entry] = await gate.store.listDecisions({ operation_id: "op-strict" });
      expect(entry).toMatchObject({ decision: "deny", reason: "policy_evaluation_error", outcome: "terminal_failure", outcome_reason: "policy_evaluation_error" });
      expect(entry?.result).toMatchObject({ allow: false, reason: "policy_evaluation_error", error: "eval_builtin_error: to_number" });
      expect(JSON.stringify(entry)).not.toContain("4711");
      // A memo the rule can read is decided by the policy as before.
      expect(await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000, { memo: "500" }), operation_id: "op-big" })).toMatchObject({ reason: "policy_denied" });
      expect((await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000, { memo: "5" }), operation_id: "op-small" })).outcome).toBe("success");
      expect(ran).toBe(1);
    });

    it(`without strict_builtin_errors the failing rule is undefined and the call runs, as in OPA (${name})`, async () => {
      let ran = 0;
      const gate = makeGate({
        policy: await load(),
        store: await stores.fresh(),
        manifest: lenientManifest,
        handlers: (base) => ({ reserve_funds: (args, ctx) => { ran++; return base.reserve_funds(args, ctx); } }),
      });
      const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000, { memo: SECRET_MEMO }), operation_id: "op-lenient" });
      expect(env.outcome).toBe("success");
      expect(ran).toBe(1);
    });
  }
});
