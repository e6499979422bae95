import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { isPolicyLoadError, loadOpaWasmEngine, policyVersion, toDecision } from "../../src/policy/index.js";

describe("policy decisions fail closed", () => {
  const cases: { note: string; result: unknown; allow: boolean; reason: string; requires_approval: boolean }[] = [
    { note: "a well-formed allow", result: { allow: true, reason: "read_allowed", requires_approval: false }, allow: true, reason: "read_allowed", requires_approval: false },
    { note: "a well-formed approval request", result: { allow: false, reason: "approval_required", requires_approval: true }, allow: false, reason: "approval_required", requires_approval: true },
    { note: "undefined decision", result: undefined, allow: false, reason: "policy_malformed_decision", requires_approval: false },
    { note: "a bare true", result: true, allow: false, reason: "policy_malformed_decision", requires_approval: false },
    { note: "allow as a string", result: { allow: "true", reason: "x", requires_approval: false }, allow: false, reason: "policy_malformed_decision", requires_approval: false },
    { note: "missing reason", result: { allow: true, requires_approval: false }, allow: false, reason: "policy_malformed_decision", requires_approval: false },
    { note: "allow and requires_approval together", result: { allow: true, reason: "x", requires_approval: true }, allow: false, reason: "policy_malformed_decision", requires_approval: false },
  ];
  it.each(cases)("$note", ({ result, allow, reason, requires_approval }) => {
    expect(toDecision(result)).toEqual({ allow, reason, requires_approval });
  });

  it("bytes that are not a policy module do not load (PolicyLoadError)", async () => {
    const err = await loadOpaWasmEngine({ wasm: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]), entrypoint: "toolgate/authz/decision" }).catch((e: unknown) => e);
    expect(isPolicyLoadError(err)).toBe(true);
  });

  it("the policy version is a hash of the wasm bytes and the data", () => {
    const wasm = new Uint8Array([1, 2, 3]);
    const v = policyVersion(wasm, { a: 1, b: 2 });
    expect(v).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(policyVersion(wasm, { b: 2, a: 1 })).toBe(v); // canonical data: key order does not matter
    expect(policyVersion(wasm, { a: 2, b: 2 })).not.toBe(v);
    expect(policyVersion(new Uint8Array([1, 2, 4]), { a: 1, b: 2 })).not.toBe(v);
  });
});

describe("the opa-wasm engine fails closed on real compiled policies", () => {
  const compile = async (source: string): Promise<Uint8Array> => {
    const r = compilePolicy({ modules: [{ file: "p.rego", source }], entrypoints: ["p/decision"], optimize: false });
    if (r.wasm === null) throw new Error(r.errors.map((e) => e.message).join("; "));
    return r.wasm;
  };
  const input = {
    tool: "get_account", effect: "read" as const, args: {}, fingerprint: "f", operation_id: null,
    args_hash: "h", principal: { tenant: "t", user: "u", roles: [] }, context: {}, approval: null, now_ms: 0, policy_version: "v",
    policy_code_version: "c", policy_data_version: "d",
  };
  const cases: { note: string; rego: string; reason: string }[] = [
    { note: "a decision that is not an object", rego: 'package p\ndecision := "allow"', reason: "policy_malformed_decision" },
    { note: "an undefined decision", rego: "package p\ndecision := {\"allow\": true, \"reason\": \"x\", \"requires_approval\": false} if input.never", reason: "policy_undefined" },
    { note: "a conflict at evaluation time", rego: 'package p\ndecision := {"allow": true, "reason": "a", "requires_approval": false} if input.tool\ndecision := {"allow": true, "reason": "b", "requires_approval": false} if input.effect', reason: "policy_evaluation_error" },
  ];
  it.each(cases)("$note -> deny $reason", async ({ rego, reason }) => {
    const engine = await loadOpaWasmEngine({ wasm: await compile(rego), entrypoint: "p/decision" });
    const decision = await engine.evaluate(input);
    expect(decision).toMatchObject({ allow: false, reason, requires_approval: false });
    // Only a failed evaluation says what failed.
    expect(decision.error !== undefined).toBe(reason === "policy_evaluation_error");
  });

  it("a missing entrypoint is a load error", async () => {
    const wasm = await compile('package p\ndecision := {"allow": true, "reason": "x", "requires_approval": false}');
    const err = await loadOpaWasmEngine({ wasm, entrypoint: "toolgate/authz/decision" }).catch((e: unknown) => e);
    expect(isPolicyLoadError(err)).toBe(true);
  });
});
