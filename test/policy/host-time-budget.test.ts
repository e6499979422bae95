/**
 * Time in host builtins counts against the decision's budget, and a wall-clock
 * deadline is checked between host calls, on both engines: a slow host builtin (a
 * custom builtin that spins) stops the evaluation with `policy_budget_exceeded`, a
 * denial, even where the policy would have allowed (the slow call sits in a deny
 * rule under `default allow`). Nothing here asserts on wall time but test.sleep's case (a
 * 20 s sleep must end near a 50 ms deadline): the spins are long compared with the limits set,
 * and the same policy is allowed under generous ones.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import type { JsonObject } from "../../src/manifest.js";
import { defineBuiltins } from "../../src/policy/builtins/index.js";
import type { CustomBuiltins } from "../../src/policy/builtins/index.js";
import type { EvaluateOptions, PolicyDecision, PolicyInput } from "../../src/policy/engine.js";
import { loadFastEngine } from "../../src/policy/fast-engine.js";
import { HOST_NS_PER_STEP } from "../../src/policy/host-meter.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";

const ENTRYPOINT = "toolgate/authz/decision";

/** Spins for `ms` of wall time, then answers true. */
const spin: CustomBuiltins = defineBuiltins({
  "slow.spin": {
    args: ["number", "number"],
    result: "boolean",
    impl: (_i, ms) => {
      const until = performance.now() + (ms as number);
      while (performance.now() < until) {
        // busy: the event loop is blocked, as by any slow synchronous builtin
      }
      return true;
    },
  },
});

const POLICY = `package toolgate.authz
import rego.v1

default decision := {"allow": true, "reason": "ok", "requires_approval": false}

decision := {"allow": false, "reason": "spin_failed", "requires_approval": false} if {
	some i in numbers.range(1, input.args.calls)
	not slow.spin(i, input.args.ms)
}
`;

/** Sleeps (OPA's test.sleep) for the duration in the input, under `default allow`. */
const SLEEPY = `package toolgate.authz
import rego.v1

default decision := {"allow": true, "reason": "ok", "requires_approval": false}

decision := {"allow": false, "reason": "slept", "requires_approval": false} if {
	test.sleep(input.args.sleep)
	false
}
`;

function wasmOf(fuel: boolean): Uint8Array {
  const r = compilePolicy({ modules: [{ file: "policies/slow.rego", source: POLICY }], entrypoints: [ENTRYPOINT], builtins: spin, fuel });
  if (r.wasm === null) throw new Error(r.errors.map(formatDiagnostic).join("\n"));
  return r.wasm;
}

const input = (args: JsonObject): PolicyInput => ({
  tool: "t",
  effect: "read",
  args,
  fingerprint: "f",
  args_hash: "h",
  operation_id: null,
  principal: { tenant: "t", user: "u", roles: [] },
  context: {},
  approval: null,
  now_ms: 0,
  policy_version: "v",
  policy_code_version: "c",
  policy_data_version: "d",
});

type Decide = (args: JsonObject, options?: EvaluateOptions) => PolicyDecision;
const engines: readonly [string, (wasm: Uint8Array, deadlineMs?: number) => Promise<Decide>][] = [
  ["SDK engine", async (wasm, deadlineMs) => {
    const e = await loadOpaWasmEngine({ wasm, entrypoint: ENTRYPOINT, builtins: spin, ...(deadlineMs === undefined ? {} : { deadlineMs }) });
    return (args, options) => e.decide(input(args), options);
  }],
  ["fast engine", async (wasm, deadlineMs) => {
    const e = await loadFastEngine({ wasm, entrypoint: ENTRYPOINT, builtins: spin, ...(deadlineMs === undefined ? {} : { deadlineMs }) });
    return (args, options) => e.decide(input(args), options);
  }],
];

const allowed = { allow: true, reason: "ok", requires_approval: false };
const stopped = { allow: false, reason: "policy_budget_exceeded", requires_approval: false };

describe("host builtin time is bounded", () => {
  for (const [name, load] of engines) {
    it(`a slow host builtin trips the wall-clock deadline and the decision fails closed (${name})`, async () => {
      const decide = await load(wasmOf(true), 20);
      // 10 calls of 5 ms: past 20 ms at a host call, whatever the step budget.
      expect(decide({ calls: 10, ms: 5 }, { budget: Infinity })).toEqual(stopped);
      // The same policy within the deadline is the policy's answer; the engine keeps deciding.
      expect(decide({ calls: 10, ms: 5 }, { budget: Infinity, deadlineMs: 10_000 })).toEqual(allowed);
    });

    it(`time in host builtins is charged against the step budget (${name})`, async () => {
      const decide = await load(wasmOf(true), Infinity);
      // 30 ms of host time is 300 000 steps: over a budget of 100 000.
      const budget = 100_000;
      expect((30 * 1e6) / HOST_NS_PER_STEP).toBeGreaterThan(budget);
      expect(decide({ calls: 1, ms: 30 }, { budget })).toEqual(stopped);
      // Three calls of 4 ms each fit alone (40 000 steps) but not together (120 000).
      expect(decide({ calls: 3, ms: 4 }, { budget })).toEqual(stopped);
      // Under a budget that pays for it (10^7 steps: one second), the same calls are allowed.
      expect(decide({ calls: 3, ms: 4 }, { budget: 10_000_000 })).toEqual(allowed);
    });

    it(`test.sleep ends at the evaluation's deadline, not after the duration the policy asks for (${name})`, async () => {
      const r = compilePolicy({ modules: [{ file: "policies/sleepy.rego", source: SLEEPY }], entrypoints: [ENTRYPOINT], fuel: true });
      if (r.wasm === null) throw new Error(r.errors.map(formatDiagnostic).join("\n"));
      const decide = await load(r.wasm, 50);
      const started = performance.now();
      expect(decide({ sleep: "20s" }, { budget: Infinity })).toEqual(stopped);
      // The only wall-time check here, with a wide margin: sleeping what was asked takes 20 s.
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(decide({ sleep: "1ms" }, { budget: Infinity })).toEqual(allowed);
    });

    it(`a module without a step counter is charged by the host alone (${name})`, async () => {
      const decide = await load(wasmOf(false), Infinity);
      expect(decide({ calls: 1, ms: 30 }, { budget: 100_000 })).toEqual(stopped);
      expect(decide({ calls: 1, ms: 1 }, { budget: 10_000_000 })).toEqual(allowed);
    });
  }
});
