/**
 * The fast engine (the runtime's default) decides exactly as the SDK engine on every
 * generated input: tool arguments generated from the manifest's JSON Schemas
 * (generated/manifest.ts), principals, approvals and versions drawn around the
 * values that matter, plus hostile extras (unknown members, members named like
 * Object.prototype properties, any JSON value in place of a field). Both the
 * compiled writer (through the input template) and the interpreted projected writer
 * are checked.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { manifest } from "../../generated/manifest.js";
import type { JsonObject } from "../../src/manifest.js";
import type { PolicyEngine, PolicyInput } from "../../src/policy/engine.js";
import { FastPolicy, loadFastEngine } from "../../src/policy/fast-engine.js";
import type { FastPolicyEngine } from "../../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";
import { deny, toDecision } from "../../src/policy/engine.js";
import type { PolicyDecision } from "../../src/policy/engine.js";
import { createHostBuiltins } from "../../src/policy/host-builtins/index.js";
import { loadPolicy } from "@open-policy-agent/opa-wasm";

const ENTRY = "toolgate/authz/decision";
const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;

type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; enum?: unknown[]; const?: unknown; pattern?: string; maxLength?: number; minimum?: number; maximum?: number; items?: Schema };

/** Values valid under the schemas tools.yaml uses (object, string, integer, array; enum, const, pattern, bounds). */
function fromSchema(s: Schema): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum !== undefined) return fc.constantFrom(...s.enum);
  switch (s.type) {
    case "object": {
      const props = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, fromSchema(v)]));
      return fc.record(props, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
    }
    case "string":
      if (s.pattern !== undefined) return fc.stringMatching(new RegExp(s.pattern));
      return fc.string(s.maxLength === undefined ? {} : { maxLength: s.maxLength });
    case "integer":
      return fc.integer({ min: s.minimum ?? -1e9, max: s.maximum ?? 3e7 });
    case "array":
      return fc.array(fromSchema(s.items ?? {}), { maxLength: 4 });
    default:
      return fc.jsonValue();
  }
}

const HOSTILE_KEYS = ["__proto__", "toString", "constructor", "hasOwnProperty", "valueOf", "extra", "é", "😀"];
const hostileExtras = fc.dictionary(fc.constantFrom(...HOSTILE_KEYS), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

/** `o` with hostile members added (defined as own properties, as JSON.parse would). */
function withExtras(o: Record<string, unknown>, extras: Record<string, unknown>): Record<string, unknown> {
  const out = { ...o };
  for (const [k, v] of Object.entries(extras)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

const tools = Object.values(manifest.tools);
const TOOL_NAMES = [...tools.map((t) => t.name), "mystery_tool"];
const VERSIONS = ["sha256:v1", "sha256:v2"];

const inputArb: fc.Arbitrary<unknown> = fc
  .record({
    tool: fc.constantFrom(...tools),
    // Mostly the manifest's own tool and effect; sometimes another.
    toolName: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...TOOL_NAMES) }),
    effect: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom("read", "reversible_write", "external_write", "destructive", "other") }),
    tenant: fc.constantFrom("t1", "t2"),
    roles: fc.oneof(fc.constant(["agent"]), fc.array(fc.constantFrom("agent", "viewer", "notifier", "auditor", "approver"), { maxLength: 3 })),
    op: fc.option(fc.constantFrom("op_1", "op_2"), { nil: null }),
    fp: fc.constantFrom("fp_1", "fp_2"),
    ah: fc.constantFrom("ah_1", "ah_2"),
    code: fc.constantFrom(...VERSIONS),
    approval: fc.option(
      fc.record({
        // At most one member differs from the call, so every mismatch and the match are reached.
        mismatch: fc.constantFrom(null, null, null, "tenant", "tool", "fp", "ah", "op", "code"),
        decision: fc.constantFrom(null, "approve", "approve", "approve", "edit", "reject", "revoke", "maybe"),
        expires: fc.constantFrom(999, 1000, 1001, 1001),
        consumed: fc.boolean(),
      }),
      { nil: null },
    ),
    extras: hostileExtras,
    // Now and then any JSON value in place of a field.
    deep: fc.oneof(
      { weight: 5, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.array(fc.record({ field: fc.constantFrom("tool", "effect", "args", "principal", "approval", "now_ms", "operation_id", "context"), value: fc.jsonValue({ maxDepth: 2 }) }), { minLength: 1, maxLength: 1 }) },
    ),
  })
  .chain((r) => fromSchema(r.tool.input_schema as Schema).chain((args) => hostileExtras.map((argExtras) => ({ r, args: withExtras(args as Record<string, unknown>, argExtras) }))))
  .map(({ r, args }) => {
    const tool = r.toolName ?? r.tool.name;
    const input: Record<string, unknown> = {
      tool,
      effect: r.effect ?? r.tool.effect,
      args,
      fingerprint: r.fp,
      args_hash: r.ah,
      operation_id: r.op,
      principal: { tenant: r.tenant, user: "alice", roles: r.roles },
      context: { big: "x".repeat(2000) },
      approval:
        r.approval === null
          ? null
          : {
              id: "apr_1",
              tenant: r.approval.mismatch === "tenant" ? "t3" : r.tenant,
              tool: r.approval.mismatch === "tool" ? "other_tool" : tool,
              fingerprint: r.approval.mismatch === "fp" ? "fp_other" : r.fp,
              args_hash: r.approval.mismatch === "ah" ? "ah_other" : r.ah,
              operation_id: r.approval.mismatch === "op" ? "op_other" : r.op,
              decision: r.approval.decision,
              requested_by: "alice",
              approver: "bob",
              approver_roles: ["approver"],
              expires_at_ms: r.approval.expires,
              policy_version: "sha256:pv",
              policy_code_version: r.approval.mismatch === "code" ? "sha256:old" : r.code,
              policy_data_version: "sha256:dv",
              consumed: r.approval.consumed,
            },
      now_ms: 1000,
      policy_version: "sha256:pv",
      policy_code_version: r.code,
      policy_data_version: "sha256:dv",
    };
    for (const d of r.deep) input[d.field] = d.value;
    return withExtras(input, r.extras);
  });

let sdk: PolicyEngine;
/** The SDK's evaluate() given the whole input object: the oracle both engines must agree with. */
let whole: (input: unknown) => PolicyDecision;
let compiled: FastPolicyEngine;
let interpreted: FastPolicy;

beforeAll(async () => {
  const r = compilePolicy({ modules: [{ file: "policies/authz.rego", source: readFileSync("policies/authz.rego", "utf8") }], entrypoints: [ENTRY] });
  expect(r.errors).toEqual([]);
  sdk = await loadOpaWasmEngine({ wasm: r.wasm!, entrypoint: ENTRY, data });
  const raw = await loadPolicy(r.wasm!, undefined, createHostBuiltins().builtins);
  raw.setData(data);
  whole = (input) => {
    const rs = raw.evaluate(input, ENTRY) as { result?: unknown }[];
    return rs.length === 1 ? toDecision(rs[0]!.result) : deny("policy_undefined");
  };
  compiled = await loadFastEngine({ wasm: r.wasm!, entrypoint: ENTRY, data });
  interpreted = await FastPolicy.load(r.wasm!, { compileWriters: false });
  interpreted.setData(data);
});

describe("default (fast) engine and SDK engine vs the SDK on the whole input, on generated inputs", () => {
  it("writes only what the policy reads and decides through the decision export", () => {
    expect(compiled.policy.hasDecisionExport).toBe(true);
    expect(compiled.policy.projects(compiled.entrypointId)).toBe(true);
    expect(compiled.policy.usesTemplate(compiled.entrypointId)).toBe(true);
    expect(interpreted.projects(compiled.entrypointId)).toBe(true);
  });

  it("identical decisions: the SDK engine's projected input, compiled and interpreted writers alike", async () => {
    const reasons = new Set<string>();
    await fc.assert(
      fc.asyncProperty(inputArb, async (input) => {
        const want = whole(input);
        reasons.add(want.reason);
        expect(await sdk.evaluate(input as PolicyInput)).toEqual(want);
        expect(compiled.decide(input as PolicyInput)).toEqual(want);
        expect(interpreted.decide(input, compiled.entrypointId)).toEqual(want);
      }),
      { numRuns: 400, seed: 15 },
    );
    // The generator reaches the policy's interesting outcomes, not only input_malformed.
    for (const r of ["input_malformed", "read_allowed", "approval_required", "approved", "destructive_denied", "role_not_permitted", "approval_tool_mismatch", "approval_expired"]) {
      expect(reasons).toContain(r);
    }
  });
});
