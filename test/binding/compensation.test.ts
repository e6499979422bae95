/**
 * Compensation the agent can use: when an effect landed but its postcondition failed, the
 * envelope names the resource, the observed state and the compensating call (tool, arguments
 * from tools.yaml compensation_args, deterministic operation id); runtime.compensate runs it as
 * its own gated call, and a repeated compensate replays instead of undoing twice. Both stores.
 */
import { randomUUID } from "node:crypto";
import Ajv2020 from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { loadToolsSource } from "../../codegen/toolsyaml/index.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { compensationOperationId } from "../../src/runtime/compensation.js";
import { envelopeJsonSchema, isEnvelope } from "../../src/runtime/index.js";
import type { Envelope } from "../../src/runtime/index.js";
import { staleSuccess } from "../../src/testing/index.js";
import { alice, bob, loadShippedPolicy, makeGate, mallory, reserveArgs } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const op = (s: string) => `${s}-${randomUUID().slice(0, 8)}`;
const schema = new Ajv2020.default({ strict: false }).compile(envelopeJsonSchema);
const checked = (e: Envelope): Envelope => {
  expect(isEnvelope(e)).toBe(true);
  expect(schema(e), JSON.stringify(schema.errors)).toBe(true);
  return e;
};

describeEachStore("compensation", (stores) => {
  let policy: PolicyEngine;
  beforeAll(async () => {
    policy = await loadShippedPolicy();
  });

  it("undo surfaced: a landed effect whose postcondition failed names the resource, observed state and compensating call; runtime.compensate runs it once", async () => {
    const g = makeGate({
      policy,
      store: await stores.fresh(),
      // The reservation lands, but the tool reports a stale amount: the postcondition fails.
      handlers: (base) => ({ reserve_funds: staleSuccess(base.reserve_funds, async (a) => ({ amount: a.amount - 1, state: "reserved" })) }),
    });
    const id = op("op-stale");
    const ask = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id });
    const approval_id = ask.outcome === "terminal_failure" ? (ask.approval_id ?? "") : "";
    await g.runtime.approvals.decide(approval_id, { decision: "approve" }, bob);
    const failed = checked(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id }));
    const landed = [...g.ledger.reservations.values()].find((r) => r.operation_id === id);
    expect(landed?.state).toBe("reserved");
    const cmpId = compensationOperationId(alice.tenant, id);
    expect(failed).toMatchObject({
      outcome: "terminal_failure",
      reason: "permanent_error",
      resource_id: landed?.reservation_id,
      observed_state: { amount: 999, state: "reserved" },
      compensation: { tool: "release_funds", args: { reservation_id: landed?.reservation_id, reason: expect.any(String) }, operation_id: cmpId },
    });
    // Gated like any write: the compensating call needs its own approval.
    const needs = checked(await g.runtime.compensate(alice, id));
    expect(needs).toMatchObject({ reason: "approval_required", operation_id: cmpId });
    const cmpApproval = needs.outcome === "terminal_failure" ? (needs.approval_id ?? "") : "";
    await g.runtime.approvals.decide(cmpApproval, { decision: "approve" }, bob);
    const undone = checked(await g.runtime.compensate(alice, id, { approval_id: cmpApproval }));
    expect(undone).toMatchObject({ outcome: "success", operation_id: cmpId, replayed: false });
    expect(landed?.state).toBe("released");
    const again = checked(await g.runtime.compensate(alice, id, { approval_id: cmpApproval }));
    expect(again).toMatchObject({ outcome: "success", operation_id: cmpId, replayed: true });
    expect(g.ledger.effects.filter((e) => e.tool === "release_funds")).toHaveLength(1);
  });

  it("compensate answers a typed failure for an operation with nothing to undo, or of another tenant", async () => {
    const g = makeGate({ policy, store: await stores.fresh() });
    expect(checked(await g.runtime.compensate(alice, "op-never-ran"))).toMatchObject({ outcome: "terminal_failure", reason: "invalid_arguments" });
    expect(checked(await g.runtime.compensate(alice, ""))).toMatchObject({ reason: "invalid_arguments" });
    const id = op("op-ok");
    const ask = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id });
    const a = ask.outcome === "terminal_failure" ? (ask.approval_id ?? "") : "";
    await g.runtime.approvals.decide(a, { decision: "approve" }, bob);
    expect(await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: id, approval_id: a })).toMatchObject({ outcome: "success" });
    expect(checked(await g.runtime.compensate(alice, id))).toMatchObject({ reason: "invalid_arguments", message: expect.stringContaining("no recorded compensation") });
    expect(checked(await g.runtime.compensate(mallory, id))).toMatchObject({ reason: "invalid_arguments" });
  });
});

describe("compensation_args in tools.yaml", () => {
  const yaml = (args: string) => `version: 1
tools:
  hold:
    description: Hold.
    effect: reversible_write
    input: { type: object, additionalProperties: false, required: [item], properties: { item: { type: string } } }
    output: { type: object }
    idempotency: { fingerprint: [item] }
    compensation: unhold
${args}
  unhold:
    description: Unhold.
    effect: reversible_write
    input: { type: object, additionalProperties: false, required: [hold_id], properties: { hold_id: { type: string }, note: { type: string } } }
    output: { type: object }
    idempotency: { fingerprint: [hold_id] }
`;
  it("is normalised into the manifest", () => {
    const { loaded, errors } = loadToolsSource(yaml('    compensation_args: { hold_id: $resource_id, note: "undo" }'), "tools.yaml");
    expect(errors).toEqual([]);
    expect(loaded?.manifest.tools["hold"]?.compensation_args).toEqual({ hold_id: { from: "resource_id" }, note: { equals: "undo" } });
  });
  it("rejects unknown target fields, unknown own fields and unmapped required fields, located", () => {
    const codes = (args: string) => loadToolsSource(yaml(args), "tools.yaml").errors.map((e) => `${e.code}@${e.location.row}`);
    expect(codes("    compensation_args: { hold_id: $resource_id, colour: red }")).toEqual(["invalid_compensation_args@10"]);
    expect(codes("    compensation_args: { hold_id: $args.nope }")).toEqual(["invalid_compensation_args@10"]);
    expect(codes("    compensation_args: { note: x }")).toEqual(["incomplete_compensation_args@10"]);
  });
});
