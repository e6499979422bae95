/**
 * The generated typed client (`createGate` in generated/gate.ts): a wrong argument field is a
 * compile error, the success value has the tool's output type, and every typed call is the
 * runtime's own call (same envelope, operation id, approval id and trace context passed through).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createGate } from "../../generated/index.js";
import type { CallOptions, CallRequest, Envelope, TrustedContext } from "../../src/index.js";
import { repoRoot } from "../helpers/repo.js";
import { typecheckFiles } from "../helpers/typecheck.js";

const ctx: TrustedContext = { tenant: "t1", user: "alice", roles: ["agent"], run_id: "run-1" };

describe("generated typed client", () => {
  it("a wrong argument field is a compile error and the success value is typed (the @ts-expect-error proof compiles clean)", () => {
    const proof = readFileSync(join(repoRoot, "test", "codegen", "typed-client.typecheck.ts"), "utf8")
      .replaceAll("../../generated/index.js", "./generated/index.js")
      .replaceAll("../../src/index.js", "toolgate");
    expect(typecheckFiles({ "proof.ts": proof })).toEqual([]);
  }, 120_000);

  it("a misspelled argument field and a success value used as another type are each reported by tsc", () => {
    const problems = typecheckFiles({
      "wrong.ts": [
        'import type { Runtime, TrustedContext } from "toolgate";',
        'import { createGate } from "./generated/index.js";',
        "export async function f(runtime: Runtime, ctx: TrustedContext): Promise<void> {",
        "  const gate = createGate(runtime);",
        '  await gate.tools.reserve_funds(ctx, { account_id: "a", amout: 1, currency: "EUR", recipient: "b" });',
        '  const r = await gate.tools.reserve_funds(ctx, { account_id: "a", amount: 1, currency: "EUR", recipient: "b" });',
        '  if (r.outcome === "success") { const n: number = r.value.reservation_id; void n; }',
        "}",
        "",
      ].join("\n"),
    });
    expect(problems.map((p) => p.line)).toEqual([5, 7]);
    expect(problems[0]?.message).toContain("amout");
    expect(problems[1]?.code).toBe(2322); // string is not assignable to number: the value is ReserveFundsOutput
  }, 120_000);

  it("a typed call is runtime.call with the tool name, the arguments, the ids and the trace context", async () => {
    const seen: { request: CallRequest; options: CallOptions | undefined }[] = [];
    const answer: Envelope = { outcome: "success", value: { reservation_id: "res_1", state: "reserved" }, observed_state: null, operation_id: "op-1", replayed: false };
    const gate = createGate({
      call: async (_ctx: TrustedContext, request: CallRequest, options?: CallOptions) => {
        seen.push({ request, options });
        return answer;
      },
    });
    const args = { account_id: "acc_alice", amount: 100, currency: "EUR", recipient: "acc_bob" } as const;
    const env = await gate.tools.reserve_funds(ctx, args, { operation_id: "op-1", approval_id: "apr_1", traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });
    expect(env).toBe(answer);
    expect(seen).toEqual([
      {
        request: { tool: "reserve_funds", args, operation_id: "op-1", approval_id: "apr_1" },
        options: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
      },
    ]);
    await gate.tools.get_account(ctx, { account_id: "acc_alice" });
    expect(seen[1]?.request).toEqual({ tool: "get_account", args: { account_id: "acc_alice" } });
  });
});
