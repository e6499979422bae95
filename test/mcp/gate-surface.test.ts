/** The pieces every agent door shares: listing by policy, annotations, gate arguments, results, preflight. */
import { describe, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import { advertisedInputSchema, GateArgumentsError, toCallRequest } from "../../src/adapters/gate-arguments.js";
import { resultJsonSchema } from "../../src/adapters/result-schema.js";
import { EscrowLedger, escrowHandlers } from "../../src/demo/escrow.js";
import type { ToolManifestEntry } from "../../src/manifest.js";
import { toolAnnotations, toToolResult } from "../../src/mcp/index.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { createRuntime } from "../../src/runtime/index.js";
import { envelopeJsonSchema } from "../../src/runtime/envelope-schema.js";
import { openSqliteStore } from "../../src/store/index.js";
import { staticPolicy } from "../../src/testing/index.js";
import { alice, loadPolicy, reserveArgs, viewer } from "./fixture.js";

const reserve = manifest.tools.reserve_funds as ToolManifestEntry;
const getAccount = manifest.tools.get_account as ToolManifestEntry;

function runtimeWith(policy: PolicyEngine) {
  const ledger = new EscrowLedger();
  const runtime = createRuntime({ manifest, validators, handlers: escrowHandlers(ledger), policy, store: openSqliteStore(":memory:"), onError: () => undefined });
  return { runtime, ledger };
}

describe("tool listing asks the policy", () => {
  it("leaves out what the shipped policy denies for the principal whatever the arguments, keeps what needs approval", async () => {
    const { runtime } = runtimeWith(await loadPolicy());
    const names = (await runtime.listTools(alice)).map((t) => t.name);
    expect(names).toEqual(Object.keys(manifest.tools).filter((n) => n !== "close_account").sort());
    expect((await runtime.listTools(viewer)).map((t) => t.name)).toEqual(["get_account", "get_reservation", "list_transactions"]);
    expect(await runtime.listTools({ ...alice, roles: [] })).toEqual([]);
  });

  it("fails closed: a tool the policy cannot answer for is not listed", async () => {
    const flaky: PolicyEngine = {
      version: "flaky",
      async evaluate(input) {
        if (input.tool === "get_account") throw new Error("engine crashed");
        return { allow: true, reason: "ok", requires_approval: false };
      },
    };
    const { runtime } = runtimeWith(flaky);
    const names = (await runtime.listTools(alice)).map((t) => t.name);
    expect(names).not.toContain("get_account");
    expect(names).toContain("get_reservation");
  });

  it("asks with no arguments, no approval, the principal from the trusted context and an operation id for writes", async () => {
    const seen: unknown[] = [];
    const { runtime } = runtimeWith(staticPolicy((input) => (seen.push(input), { allow: false, reason: "no", requires_approval: false })));
    expect(await runtime.listTools(alice)).toEqual([]);
    expect(seen).toHaveLength(Object.keys(manifest.tools).length);
    expect(seen).toContainEqual(expect.objectContaining({ tool: "reserve_funds", args: {}, approval: null, principal: { tenant: "t_acme", user: "alice", roles: ["agent"] }, operation_id: expect.any(String) }));
    expect(seen).toContainEqual(expect.objectContaining({ tool: "get_account", operation_id: null }));
  });
});

describe("annotations are the effect classes", () => {
  const withEffect = (effect: ToolManifestEntry["effect"], fingerprint: string[] = []): ToolManifestEntry => ({ ...reserve, effect, fingerprint });
  it("maps read, reversible_write, external_write and destructive; idempotentHint for a fingerprint", () => {
    expect(toolAnnotations(withEffect("read"))).toEqual({ readOnlyHint: true });
    expect(toolAnnotations(withEffect("reversible_write", ["a"]))).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(toolAnnotations(withEffect("external_write"))).toEqual({ readOnlyHint: false, openWorldHint: true });
    expect(toolAnnotations(withEffect("destructive", ["a"]))).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  });
});

describe("gate arguments", () => {
  it("writes require operation_id in the advertised schema; reads get none", () => {
    expect(advertisedInputSchema(reserve)["required"]).toContain("operation_id");
    expect(Object.keys(advertisedInputSchema(getAccount)["properties"] as object)).toEqual(["account_id"]);
  });

  it("a tool declaring operation_id itself is refused when the server or adapter is built", () => {
    const clash: ToolManifestEntry = { ...reserve, input_schema: { type: "object", properties: { operation_id: { type: "string" } } } };
    expect(() => advertisedInputSchema(clash)).toThrow(GateArgumentsError);
    expect(() => advertisedInputSchema(clash)).toThrow(/operation_id.*rename it in tools\.yaml/);
  });

  it("splits the gate's ids out of the arguments and mints nothing", () => {
    expect(toCallRequest(reserve, { ...reserveArgs, operation_id: "op-1", approval_id: "apr_1" })).toEqual({ tool: "reserve_funds", args: reserveArgs, operation_id: "op-1", approval_id: "apr_1" });
    expect(toCallRequest(reserve, reserveArgs)).toEqual({ tool: "reserve_funds", args: reserveArgs });
    // A read keeps a stray operation_id in its arguments, where its closed schema rejects it.
    expect(toCallRequest(getAccount, { account_id: "acc_alice", operation_id: "x" })).toEqual({ tool: "get_account", args: { account_id: "acc_alice", operation_id: "x" } });
  });
});

describe("results", () => {
  it("success is structured content without isError; a failure sets isError; approval_required links the inbox", () => {
    const ok = toToolResult({ outcome: "success", value: 1, observed_state: null, operation_id: null, replayed: false });
    expect(ok.isError).toBeUndefined();
    const ask = toToolResult({ outcome: "terminal_failure", reason: "approval_required", message: "m", approval_id: "apr_1/x" }, "https://inbox.example/");
    expect(ask.isError).toBe(true);
    expect(ask.structuredContent).toMatchObject({ approval_id: "apr_1/x", approval_url: "https://inbox.example/approvals/apr_1%2Fx" });
    const retry = toToolResult({ outcome: "retryable_failure", reason: "timeout", message: "m", retry_after_ms: 5 });
    expect(retry).toMatchObject({ isError: true, structuredContent: { outcome: "retryable_failure", retry_after_ms: 5 } });
  });

  it("the output schema is the envelope with the success value typed by the tool's output schema", () => {
    const schema = resultJsonSchema(reserve) as { type: string; oneOf: { properties: Record<string, unknown> }[] };
    expect(schema.type).toBe("object");
    expect(schema.oneOf).toHaveLength(envelopeJsonSchema.oneOf.length);
    expect(schema.oneOf[0]?.properties["value"]).toEqual(reserve.output_schema);
  });
});

describe("preflight", () => {
  it("creates the pending approval a call would and runs no handler", async () => {
    const { runtime, ledger } = runtimeWith(await loadPolicy());
    const env = await runtime.preflight(alice, { tool: "reserve_funds", args: reserveArgs, operation_id: "op-pre" });
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "approval_required", approval_id: expect.stringMatching(/^apr_/) });
    expect(ledger.effects).toHaveLength(0);
    expect(await runtime.preflight(alice, { tool: "get_account", args: { account_id: "acc_alice" } })).toBeNull();
    expect(ledger.effects).toHaveLength(0);
    expect(await runtime.preflight(alice, { tool: "reserve_funds", args: { ...reserveArgs, amount: 2_000_000 }, operation_id: "op-big" })).toMatchObject({ reason: "policy_denied" });
  });
});
