/**
 * Rule indexing: a node's rules that test an input path against string constants are
 * grouped by constant and only the group of the input's value is evaluated. The indexed
 * build decides exactly as the unindexed one (property tests over generated policies
 * and inputs, both engines), and the index is really used.
 */
import fc from "fast-check";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { printPolicy } from "../../codegen/plan/print.js";
import { FastPolicy } from "../../src/policy/fast-engine.js";
import { hostBuiltins } from "../../src/policy/host-builtins/index.js";

const TOOLS = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10"];
const KINDS = ["a", "b", "c"];

/** One rule body's tests: a tool test in one of OPA's spellings, perhaps a kind or a number test. */
const bodyArb = fc.record({
  tool: fc.oneof(
    fc.constantFrom(...TOOLS).map((t) => `input.tool == "${t}"`),
    fc.constantFrom(...TOOLS).map((t) => `"${t}" = input.tool`),
    fc.subarray(TOOLS, { minLength: 1, maxLength: 3 }).map((ts) => `input.tool in {${ts.map((t) => `"${t}"`).join(", ")}}`),
    fc.subarray(TOOLS, { minLength: 1, maxLength: 2 }).map((ts) => `input.tool in [${ts.map((t) => `"${t}"`).join(", ")}]`),
    fc.constant("true"),
  ),
  kind: fc.option(fc.constantFrom(...KINDS).map((k) => `input.args.kind == "${k}"`), { nil: undefined }),
  n: fc.option(fc.integer({ min: 0, max: 5 }).map((n) => `input.n > ${n}`), { nil: undefined }),
});

const policyArb = fc.array(bodyArb, { minLength: 1, maxLength: 40 }).map((bodies) => {
  let src = "package t\n\n";
  bodies.forEach((b, i) => {
    const tests = [b.tool, b.kind, b.n].filter((x) => x !== undefined).join("\n\t");
    src += `deny contains "r${i}" if {\n\t${tests}\n}\n\n`;
    src += `reasons[${JSON.stringify(`k${i % 7}`)}] := ${i % 3} if {\n\t${tests}\n}\n\n`;
  });
  src += 'default allow := false\n\nallow if {\n\tinput.tool == "t1"\n\tcount(deny) == 0\n}\n';
  return src;
});

const inputArb = fc.record(
  {
    tool: fc.oneof(fc.constantFrom(...TOOLS, "other"), fc.integer(), fc.constant(null)),
    args: fc.record({ kind: fc.constantFrom(...KINDS, "z") }, { requiredKeys: [] }),
    n: fc.integer({ min: -1, max: 7 }),
  },
  { requiredKeys: [] },
);

function build(src: string, ruleIndex: boolean): Uint8Array {
  const out = compilePolicy({ modules: [{ file: "p.rego", source: src }], entrypoints: ["t"], ruleIndex });
  if (out.wasm === null) throw new Error(out.errors.map((e) => e.message).join("; "));
  return out.wasm;
}

/** Conflict errors are results too: both builds must report the same outcome. */
function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

describe("rule indexing", () => {
  it("the indexed build decides as the unindexed build on generated policies and inputs (SDK and fast engine)", async () => {
    await fc.assert(
      fc.asyncProperty(policyArb, fc.array(inputArb, { minLength: 1, maxLength: 8 }), async (src, inputs) => {
        const plain = await loadPolicy(build(src, false), undefined, hostBuiltins);
        const indexedWasm = build(src, true);
        const indexed = await loadPolicy(indexedWasm, undefined, hostBuiltins);
        const fast = await FastPolicy.load(indexedWasm);
        fast.setData({});
        for (const input of inputs) {
          const want = outcome(() => plain.evaluate(input, "t"));
          expect(outcome(() => indexed.evaluate(input, "t"))).toEqual(want);
          expect(outcome(() => fast.evaluate(input, fast.entrypoints["t"]!))).toEqual(want);
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it("a node with many rules testing input.tool is dispatched through lookups in constant objects", () => {
    let src = "package t\n\n";
    for (let i = 0; i < 64; i++) src += `deny contains "r${i}" if input.tool == "t${i}"\n`;
    const plan = (ruleIndex: boolean): string => printPolicy(compilePolicy({ modules: [{ file: "p.rego", source: src }], entrypoints: ["t"], ruleIndex, stopAfter: "plan" }).plan!);
    const count = (text: string, what: RegExp): number => text.split("\n").filter((l) => what.test(l)).length;
    // Unindexed: no constant objects, every rule's test is reached.
    expect(count(plan(false), /= const #/)).toBe(0);
    // Indexed: one lookup object per bit of the group number (6 for 64 constants) and one of all constants,
    // looked up with the input's value (`%n[%m]`) on the way down the tree.
    expect(count(plan(true), /= const #/)).toBe(7);
    expect(count(plan(true), /= %\d+\[%\d+\]$/)).toBeGreaterThanOrEqual(7);
  });

  it("fewer than eight indexed rules are planned as written", () => {
    let src = "package t\n\n";
    for (let i = 0; i < 7; i++) src += `deny contains "r${i}" if input.tool == "t${i}"\n`;
    const plan = (ruleIndex: boolean): string => printPolicy(compilePolicy({ modules: [{ file: "p.rego", source: src }], entrypoints: ["t"], ruleIndex, stopAfter: "plan" }).plan!);
    expect(plan(true)).toBe(plan(false));
  });
});
