/**
 * Facts from the host, fresh at commit time: a tool's declared `context:` facts are resolved by
 * the host's resolvers right before every authorization (also on the approved retry), reach the
 * policy as input.context and the handler as ctx.context; a resolver error or a value that fails
 * its schema fails closed (retryable_failure, context_unavailable). Both stores.
 */
import { randomUUID } from "node:crypto";
import Ajv2020 from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { loadToolsSource } from "../../codegen/toolsyaml/index.js";
import { generateTypeScript } from "../../codegen/typescript/index.js";
import { manifest, validators } from "../../generated/index.js";
import type { ToolHandlers } from "../../generated/index.js";
import type { JsonObject } from "../../src/manifest.js";
import type { PolicyEngine, PolicyInput } from "../../src/policy/engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";
import { createRuntime, envelopeJsonSchema, isEnvelope, isRuntimeConfigError } from "../../src/runtime/index.js";
import type { Envelope } from "../../src/runtime/index.js";
import { EscrowLedger, escrowHandlers } from "../../src/demo/escrow.js";
import { openSqliteStore } from "../../src/store/index.js";
import { alice, bob, loadShippedPolicy, makeGate, reserveArgs, withTool } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";
import type { Store } from "../../src/store/store.js";

const op = (s: string) => `${s}-${randomUUID().slice(0, 8)}`;
const ajv = new Ajv2020.default({ strict: true });
const matchesEnvelopeSchema = new Ajv2020.default({ strict: false }).compile(envelopeJsonSchema);
const dailyValidator = ajv.compile({ type: "integer", minimum: 0 });
const contextManifest = withTool("reserve_funds", { context: ["daily_reserved"] });
const contextValidators = { ...validators, reserve_funds: { ...validators.reserve_funds, context: { daily_reserved: dailyValidator } } };

const dailyLimitRego = `package ctxp

decision := {"allow": false, "reason": "daily_limit", "requires_approval": false} if {
	input.context.daily_reserved + input.args.amount > 5000
} else := {"allow": true, "reason": "within_daily_limit", "requires_approval": false}
`;

async function dailyLimitPolicy(): Promise<PolicyEngine> {
  const r = compilePolicy({ modules: [{ file: "ctxp.rego", source: dailyLimitRego }], entrypoints: ["ctxp/decision"] });
  if (r.wasm === null) throw new Error("ctxp.rego does not compile");
  return loadOpaWasmEngine({ wasm: r.wasm, entrypoint: "ctxp/decision" });
}

const unavailable = (e: Envelope) => {
  expect(isEnvelope(e)).toBe(true);
  expect(matchesEnvelopeSchema(e)).toBe(true);
  return e;
};

describeEachStore("host context facts", (stores) => {
  let daily: PolicyEngine;
  let shipped: PolicyEngine;
  beforeAll(async () => {
    [daily, shipped] = await Promise.all([dailyLimitPolicy(), loadShippedPolicy()]);
  });

  function gateWith(policy: PolicyEngine, store: Store, resolve: () => Promise<unknown>, seen: JsonObject[] = []) {
    const ledger = new EscrowLedger();
    const base = escrowHandlers(ledger);
    const reserve: ToolHandlers["reserve_funds"] = async (a, ctx) => (seen.push(ctx.context ?? { missing: true }), base.reserve_funds(a, ctx));
    const runtime = createRuntime({
      manifest: contextManifest,
      validators: contextValidators,
      handlers: { ...base, reserve_funds: reserve },
      policy,
      store,
      context: { reserve_funds: { daily_reserved: resolve as () => Promise<number> } },
      onError: () => undefined,
    });
    return { runtime, ledger };
  }

  it("context facts are resolved right before every decision: input.context for the policy, ctx.context for the handler", async () => {
    let today = 0;
    let calls = 0;
    const seen: JsonObject[] = [];
    const g = gateWith(daily, await stores.fresh(), async () => (calls++, today), seen);
    expect(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(3_000), operation_id: op("op-c1") })).toMatchObject({ outcome: "success" });
    expect(seen).toEqual([{ daily_reserved: 0 }]);
    today = 3_000;
    const denied = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(3_000), operation_id: op("op-c2") });
    expect(denied).toMatchObject({ reason: "policy_denied", message: expect.stringContaining("daily_limit") });
    expect(calls).toBe(2);
    expect(g.ledger.effects).toHaveLength(1);
  });

  it("context facts are fresh at commit time: the approved retry is decided with the value of that moment", async () => {
    let today = 0;
    const inputs: PolicyInput[] = [];
    const spy: PolicyEngine = { version: shipped.version, ...(shipped.code_version === undefined ? {} : { code_version: shipped.code_version }), ...(shipped.data_version === undefined ? {} : { data_version: shipped.data_version }), evaluate: (i) => (inputs.push(i), shipped.evaluate(i)) };
    const seen: JsonObject[] = [];
    const g = gateWith(spy, await stores.fresh(), async () => today, seen);
    const id = op("op-fresh");
    const ask = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id });
    const approval_id = ask.outcome === "terminal_failure" ? (ask.approval_id ?? "") : "";
    expect(inputs.at(-1)?.context).toEqual({ daily_reserved: 0 });
    expect(await g.runtime.approvals.decide(approval_id, { decision: "approve" }, bob)).toMatchObject({ ok: true });
    today = 4_200;
    expect(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id })).toMatchObject({ outcome: "success" });
    expect(inputs.at(-1)?.context).toEqual({ daily_reserved: 4_200 });
    expect(seen).toEqual([{ daily_reserved: 4_200 }]);
  });

  it("a resolver error fails closed: retryable_failure context_unavailable, the policy is not asked and nothing runs", async () => {
    const asked: PolicyInput[] = [];
    const spy: PolicyEngine = { version: daily.version, evaluate: (i) => (asked.push(i), daily.evaluate(i)) };
    const store = await stores.fresh();
    const g = gateWith(spy, store, async () => {
      throw new Error("bookings service down");
    });
    const id = op("op-err");
    const e = unavailable(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id }));
    expect(e).toMatchObject({ outcome: "retryable_failure", reason: "context_unavailable", retry_after_ms: expect.any(Number), message: expect.stringContaining("its resolver failed; the error was reported to the host") });
    // The resolver's own error text (it may be a driver's) never reaches the model.
    expect(JSON.stringify(e)).not.toContain("bookings service down");
    expect(asked).toEqual([]);
    expect(g.ledger.effects).toHaveLength(0);
    expect((await store.listDecisions({ operation_id: id }))[0]).toMatchObject({ reason: "context_unavailable", outcome: "retryable_failure" });
  });

  it("a value that fails the fact's schema fails closed (context_unavailable), as does a non-JSON value", async () => {
    for (const bad of [-1, "12", 1.5, null, undefined, () => 1]) {
      const g = gateWith(daily, await stores.fresh(), async () => bad);
      const e = unavailable(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: op("op-bad") }));
      expect([bad, e]).toMatchObject([bad, { outcome: "retryable_failure", reason: "context_unavailable" }]);
      expect(g.ledger.effects).toHaveLength(0);
    }
  });
});

describe("host context facts: declaration and codegen", () => {
  it("createRuntime refuses a tool whose declared facts have no resolver or validator", () => {
    const err = (() => {
      try {
        createRuntime({ manifest: contextManifest, validators, handlers: escrowHandlers(new EscrowLedger()), policy: { version: "v", evaluate: async () => ({ allow: false, reason: "x", requires_approval: false }) }, store: openSqliteStore(":memory:") });
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(isRuntimeConfigError(err)).toBe(true);
    expect(String((err as Error).message)).toMatch(/context resolver reserve_funds\.daily_reserved.*context validator reserve_funds\.daily_reserved/);
    expect(manifest.tools["reserve_funds"]?.context).toBeUndefined();
  });

  const yaml = (context: string) => `version: 1
tools:
  book_slot:
    description: Book a slot.
    effect: reversible_write
    input: { type: object, additionalProperties: false, required: [slot_id], properties: { slot_id: { type: string } } }
    output: { type: object }
    idempotency: { fingerprint: [slot_id] }
    context:
${context}`;

  it("tools.yaml context: facts reach the manifest, typed resolvers and generated validators", async () => {
    const { loaded, errors } = loadToolsSource(yaml("      daily_bookings: { type: integer, minimum: 0 }\n      slot_start: { type: string, format: date-time }\n"), "tools.yaml");
    expect(errors).toEqual([]);
    expect(loaded?.manifest.tools["book_slot"]?.context).toEqual(["daily_bookings", "slot_start"]);
    const files = await generateTypeScript(loaded!);
    expect(files.get("types.ts")).toMatch(/export interface BookSlotContext \{\s+daily_bookings: number;\s+slot_start: string;\s+\}/);
    expect(files.get("handlers.ts")).toContain("readonly book_slot: { readonly [F in keyof BookSlotContext]-?: ContextResolver<BookSlotInput, BookSlotContext[F]> };");
    expect(files.get("validators.js")).toContain("book_slot: { input: book_slot__input, output: book_slot__output, context: { daily_bookings: book_slot__context__daily_bookings, slot_start: book_slot__context__slot_start } },");
  });

  it("a bad fact name or schema is a located loader error", () => {
    const badName = loadToolsSource(yaml("      DailyBookings: { type: integer }\n"), "tools.yaml").errors;
    expect(badName).toMatchObject([{ code: "invalid_context_name", location: { row: 10, col: 7 } }]);
    const badSchema = loadToolsSource(yaml("      daily_bookings: { type: integr }\n"), "tools.yaml").errors;
    expect(badSchema).toMatchObject([{ code: "invalid_json_schema", location: { row: 10 } }]);
  });
});
