/**
 * Bounded evaluation, end to end: a policy with a quadratic rule (a nested
 * comprehension over a 10^4 array, 10^8 steps) is stopped at the runtime's budget and
 * answered `policy_budget_exceeded`; the decision log says deny with that reason; a
 * handler timeout that was running meanwhile fires on time; and the same runtime keeps
 * deciding. On both engines and both stores (PostgreSQL when TOOLGATE_PG_URL is set).
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import type { JsonObject } from "../../src/manifest.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { loadFastEngine } from "../../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";
import { RuntimeConfigError } from "../../src/runtime/runtime.js";
import { alice, ENTRYPOINT, makeGate, until, withTool } from "./harness.js";

const RUNAWAY = `package toolgate.authz
import rego.v1

default decision := {"allow": false, "reason": "no_rule_matched", "requires_approval": false}

decision := {"allow": true, "reason": "read_allowed", "requires_approval": false} if {
	input.effect == "read"
	input.args.account_id != "acc_runaway"
}

decision := {"allow": true, "reason": "pairs_counted", "requires_approval": false} if {
	input.args.account_id == "acc_runaway"
	count([1 | some a in data.big; some b in data.big; a == b]) > 0
}
`;
import { describeEachStore } from "../helpers/stores.js";

const bigData = (n: number): JsonObject => ({ big: Array.from({ length: n }, (_, i) => i) });
const data = bigData(10_000);

function runawayWasm(): Uint8Array {
  const r = compilePolicy({ modules: [{ file: "policies/runaway.rego", source: RUNAWAY }], entrypoints: [ENTRYPOINT] });
  if (r.wasm === null) throw new Error(r.errors.map(formatDiagnostic).join("\n"));
  return r.wasm;
}

const engines: readonly [string, (wasm: Uint8Array, d?: JsonObject) => Promise<PolicyEngine>][] = [
  ["SDK engine", (wasm, d = data) => loadOpaWasmEngine({ wasm, entrypoint: ENTRYPOINT, data: d })],
  ["fast engine", (wasm, d = data) => loadFastEngine({ wasm, entrypoint: ENTRYPOINT, data: d })],
];

const BUDGET = 200_000;
const HANDLER_TIMEOUT_MS = 100;

describeEachStore("policy budget", (stores) => {
  for (const [name, load] of engines) {
    it(`a quadratic policy is stopped within its budget, a concurrent handler timeout fires on time (${name})`, async () => {
      let slowStarted = 0;
      const gate = makeGate({
        policy: await load(runawayWasm()),
        store: await stores.fresh(),
        manifest: withTool("get_account", { timeout_ms: HANDLER_TIMEOUT_MS }),
        policyBudget: BUDGET,
        handlers: (base) => ({
          get_account: (args, ctx) => {
            if (args.account_id !== "acc_slow") return base.get_account(args, ctx);
            slowStarted = performance.now();
            return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve({ ok: false, failure: "ledger_unavailable" })));
          },
        }),
      });
      const slow = gate.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_slow" } }).then((env) => ({ env, at: performance.now() }));
      await until(() => slowStarted > 0);
      const started = performance.now();
      const runaway = await gate.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_runaway" } });
      const runawayMs = performance.now() - started;
      expect(runaway).toMatchObject({ outcome: "terminal_failure", reason: "policy_budget_exceeded" });

      const timedOut = await slow;
      expect(timedOut.env).toMatchObject({ outcome: "retryable_failure", reason: "timeout" });
      // Unbounded, the rule runs 10^8 steps and holds the event loop for seconds; the timer fires only after.
      expect(timedOut.at - slowStarted).toBeLessThan(2_000);
      expect(runawayMs).toBeLessThan(2_000);

      const log = await gate.store.listDecisions({ reason: "policy_budget_exceeded" });
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ decision: "deny", reason: "policy_budget_exceeded", outcome: "terminal_failure", outcome_reason: "policy_budget_exceeded" });

      // The module that was stopped keeps deciding.
      const next = await gate.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
      expect(next).toMatchObject({ outcome: "success" });
    }, 30_000);
  }
});

describe("policy budget configuration", () => {
  it("createRuntime refuses a budget that is not a positive integer or Infinity", async () => {
    const policy = await loadOpaWasmEngine({ wasm: runawayWasm(), entrypoint: ENTRYPOINT, data });
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => makeGate({ policy, policyBudget: bad })).toThrow(RuntimeConfigError);
    }
    expect(() => makeGate({ policy, policyBudget: Infinity })).not.toThrow();
  });

  for (const [name, load] of engines) {
    it(`the engine's default budget stops the quadratic rule; a smaller input decides (${name})`, async () => {
      const policy = await load(runawayWasm());
      const input = (account_id: string) => ({
        tool: "get_account", effect: "read" as const, args: { account_id }, fingerprint: "", args_hash: "", operation_id: null,
        principal: { tenant: "t", user: "u", roles: [] }, context: {}, approval: null, now_ms: 0,
        policy_version: "", policy_code_version: "", policy_data_version: "",
      });
      const started = performance.now();
      expect(await policy.evaluate(input("acc_runaway"))).toEqual({ allow: false, reason: "policy_budget_exceeded", requires_approval: false });
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(await policy.evaluate(input("acc_alice"), { budget: 100 })).toEqual({ allow: true, reason: "read_allowed", requires_approval: false });
      // Within the budget the same rule answers: the bound is on steps, not on the rule (10^4 steps here).
      const small = await load(runawayWasm(), bigData(100));
      expect(await small.evaluate(input("acc_runaway"))).toEqual({ allow: true, reason: "pairs_counted", requires_approval: false });
      expect(await small.evaluate(input("acc_runaway"), { budget: 5_000 })).toEqual({ allow: false, reason: "policy_budget_exceeded", requires_approval: false });
    }, 60_000);
  }
});
