// Rows of `npm run bench` for one decision of policies/authz.rego: the SDK path (toolgate's SDK
// engine, which hands the opa-wasm SDK's evaluate() the input as JSON bytes cut to what the
// policy reads, on generated/policy.wasm) and toolgate's fast engine, next to the same decision
// hand-written in JavaScript, cedar-wasm, the SDK's evaluate() given the whole input object, and
// the SDK floor (a constant rule through evaluate() given the whole input object). Every
// contender is first checked to decide as the hand-written one.
import { readFileSync } from "node:fs";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../codegen/compiler/index.js";
import type { JsonObject } from "../src/manifest.js";
import { deny, toDecision } from "../src/policy/engine.js";
import type { PolicyDecision, PolicyInput } from "../src/policy/engine.js";
import { loadFastEngine } from "../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../src/policy/opa-wasm-engine.js";
import { createHostBuiltins } from "../src/policy/host-builtins/index.js";
import { makeCedar } from "./policy/cedar.js";
import { policyInputs } from "../test/helpers/policy-inputs.js";
import { makeReference } from "../test/helpers/policy-reference.js";
import { measureSdkPieces, sdkPiecesText } from "./policy/sdk-pieces.js";
import type { AuthzConfig } from "../test/helpers/policy-reference.js";
import { interleaved } from "./rows.js";
import type { RowSource } from "./rows.js";

const ENTRY = "toolgate/authz/decision";

export const policyRows: RowSource = {
  name: "policy",
  async run(ctx) {
    const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
    const config = (data.toolgate as JsonObject).config as unknown as AuthzConfig;
    const wasm = new Uint8Array(readFileSync("generated/policy.wasm"));
    const inputs = policyInputs(512, 42);
    const sdk = await loadPolicy(wasm, undefined, createHostBuiltins().builtins);
    sdk.setData(data);
    const ep = (sdk.entrypoints as Record<string, number>)[ENTRY]!;
    const floorOut = compilePolicy({ modules: [{ file: "floor.rego", source: 'package floor\n\ndecision := {"allow": true, "reason": "constant", "requires_approval": false}\n' }], entrypoints: ["floor/decision"] });
    if (floorOut.wasm === null) throw new Error("the floor module does not compile");
    const floor = await loadPolicy(floorOut.wasm);
    const fast = await loadFastEngine({ wasm, entrypoint: ENTRY, data });
    const sdkEngine = await loadOpaWasmEngine({ wasm, entrypoint: ENTRY, data });
    const viaSdk = (p: typeof sdk, id: number) => (input: PolicyInput): PolicyDecision => {
      const rs = p.evaluate(input, id) as { result?: unknown }[];
      return rs.length === 1 ? toDecision(rs[0]!.result) : deny("policy_undefined");
    };
    const decide = [(i: PolicyInput) => sdkEngine.decide(i), (i: PolicyInput) => fast.decide(i), makeReference(config), makeCedar(config), viaSdk(floor, 0), viaSdk(sdk, ep)];
    for (const d of [...decide.slice(0, 4), decide[5]!]) {
      const bad = inputs.filter((i) => JSON.stringify(d(i)) !== JSON.stringify(decide[2]!(i)));
      if (bad.length > 0) throw new Error(`a contender disagrees with the hand-written policy on ${bad.length} inputs`);
    }
    let n = 0;
    const rounds = ctx.quick ? 6 : 20;
    const batch = ctx.quick ? 1_000 : 5_000;
    ctx.log(`policy: ${rounds} interleaved rounds of ${batch} decisions per contender`);
    // cedar-wasm is ~100x slower than the rest; fewer calls per round keep its rounds comparable in length.
    const [sdkUs, fastUs, jsUs, , floorUs, wholeUs] = interleaved(decide.map((d, k) => (k === 3 ? () => undefined : () => d(inputs[n++ & 511]!))), rounds, batch);
    const [cedarUs] = interleaved([() => decide[3]!(inputs[n++ & 511]!)], rounds, Math.max(20, batch / 50));
    const pieces = measureSdkPieces(sdk, ep, inputs, rounds, batch);
    const anchors = [{ label: "hand-written JS", value: jsUs! }, { label: "cedar-wasm statefulIsAuthorized", value: cedarUs! }];
    return {
      rows: [
        {
          what: "one decision of policies/authz.rego, SDK path",
          unit: "µs/decision",
          better: "lower",
          toolgate: { label: "SDK engine decide() (opa-wasm evaluate(), projected JSON bytes)", value: sdkUs! },
          anchors: [...anchors, { label: "SDK evaluate() of the whole input object", value: wholeUs! }, { label: "SDK floor (constant rule, whole input object)", value: floorUs! }],
          notes: ["target <= 6 µs", "the unmodified SDK; toolgate's SDK engine passes it the input as JSON bytes of the members the policy can read"],
        },
        {
          what: "SDK path pieces (the SDK's evaluate() of the whole input object, in its steps)",
          unit: "µs/decision",
          better: "lower",
          toolgate: { label: "opa-wasm SDK evaluate() of the whole input object, staged run", value: pieces.totalUs },
          anchors: [{ label: "SDK floor (constant rule)", value: floorUs! }],
          notes: [sdkPiecesText(pieces), "each piece is the difference of two cumulative stages (bench/policy/sdk-pieces.ts)"],
        },
        { what: "one decision of policies/authz.rego, fast path", unit: "µs/decision", better: "lower", toolgate: { label: "toolgate fast engine decide()", value: fastUs! }, anchors, notes: ["target <= 1.5 µs, <= 20x hand-written JS, >= 150x faster than cedar-wasm"] },
      ],
    };
  },
};
