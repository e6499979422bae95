/**
 * Regexes run in linear time on both engines: a pattern that backtracks exponentially
 * in a JavaScript RegExp (`^(\w+\s?)*$` against "a"*N + "!" doubled with every
 * character) is answered by the RE2 engine, with the right result, whatever the input.
 * Each catalogue entry would take longer than the age of the universe on a
 * backtracking engine at these input sizes; here they all complete within the default
 * step budget (host time included, host-meter.ts), so the decision is the policy's.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import type { JsonObject } from "../../src/manifest.js";
import type { PolicyDecision, PolicyInput } from "../../src/policy/engine.js";
import { loadFastEngine } from "../../src/policy/fast-engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";
import { regexFindAllStringSubmatchN, regexFindN, regexMatch, regexReplace, regexSplit, regexTemplateMatch } from "../../src/policy/host-builtins/regex.js";
import { globMatch } from "../../src/policy/host-builtins/glob.js";

const ENTRYPOINT = "toolgate/authz/decision";

const WORDS_ONLY = String.raw`package toolgate.authz
import rego.v1

default decision := {"allow": true, "reason": "ok", "requires_approval": false}

decision := {"allow": false, "reason": "memo_not_words", "requires_approval": false} if {
	not regex.match(` + "`^(\\w+\\s?)*$`" + String.raw`, input.args.memo)
}
`;

const ANY_PATTERN = `package toolgate.authz
import rego.v1

decision := {"allow": regex.match(input.args.pattern, input.args.value), "reason": "matched", "requires_approval": false}
`;

function wasmOf(source: string): Uint8Array {
  const r = compilePolicy({ modules: [{ file: "policies/p.rego", source }], entrypoints: [ENTRYPOINT] });
  if (r.wasm === null) throw new Error(r.errors.map(formatDiagnostic).join("\n"));
  return r.wasm;
}

const input = (args: JsonObject): PolicyInput => ({
  tool: "send_memo",
  effect: "external_write",
  args,
  fingerprint: "f",
  args_hash: "h",
  operation_id: "op-1",
  principal: { tenant: "t", user: "u", roles: [] },
  context: {},
  approval: null,
  now_ms: 0,
  policy_version: "v",
  policy_code_version: "c",
  policy_data_version: "d",
});

const TEMPLATE = `package toolgate.authz
import rego.v1

decision := {"allow": regex.template_match(input.args.template, input.args.value, "{", "}"), "reason": "matched", "requires_approval": false}
`;

type Decide = (args: JsonObject) => PolicyDecision;
const engines: readonly [string, (wasm: Uint8Array) => Promise<Decide>][] = [
  ["SDK engine", async (wasm) => { const e = await loadOpaWasmEngine({ wasm, entrypoint: ENTRYPOINT }); return (args) => e.decide(input(args)); }],
  ["fast engine", async (wasm) => { const e = await loadFastEngine({ wasm, entrypoint: ENTRYPOINT }); return (args) => e.decide(input(args)); }],
];

const a = (n: number): string => "a".repeat(n);

/** [pattern, text, Go's regexp.MatchString]. */
const CATASTROPHIC: readonly (readonly [string, string, boolean])[] = [
  ["(a+)+$", a(5000) + "!", false],
  ["(a+)+$", a(5000), true],
  ["^(a|a)*$", a(5000) + "!", false],
  ["^(a|aa)+$", a(5000) + "!", false],
  ["^(a|aa)+$", a(5000), true],
  ["(.*a){12}", a(11) + "b".repeat(5000), false],
  ["(.*a){12}", "b".repeat(2000) + a(12), true],
  ["^(\\w+\\s?)*$", a(140) + "!", false],
  ["^(\\w+\\s?)*$", "only words and spaces here", true],
  ["(x+x+)+y", "x".repeat(5000), false],
  ["(x+x+)+y", "x".repeat(100) + "y", true],
  // The OWASP e-mail pattern, and a common hand-written one.
  ["^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$", a(5000) + "!", false],
  ["^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$", "john.doe@example.com", true],
  ["^([\\w.+-]+)+@([\\w-]+\\.)+[a-z]{2,}$", `${a(3000)}@${"b.".repeat(1000)}`, false],
  ["^([\\w.+-]+)+@([\\w-]+\\.)+[a-z]{2,}$", "x.y+z@mail.example.org", true],
];

describe("regexes run in linear time (the RE2 engine)", () => {
  for (const [name, load] of engines) {
    it(`the words-only check with a 140-character hostile memo is decided, not frozen (${name})`, async () => {
      const decide = await load(wasmOf(WORDS_ONLY));
      expect(decide({ memo: a(140) + "!" })).toEqual({ allow: false, reason: "memo_not_words", requires_approval: false });
      expect(decide({ memo: "pay the rent" })).toEqual({ allow: true, reason: "ok", requires_approval: false });
      // Far beyond any backtracking reach: still the policy's answer, inside the default budget.
      expect(decide({ memo: a(20_000) + "!" })).toEqual({ allow: false, reason: "memo_not_words", requires_approval: false });
    });

    it(`every catastrophic pattern of the catalogue gets Go's answer within the default budget (${name})`, async () => {
      const decide = await load(wasmOf(ANY_PATTERN));
      for (const [pattern, value, want] of CATASTROPHIC) {
        expect(decide({ pattern, value }), `${pattern} against ${value.slice(0, 20)}… (${value.length})`).toEqual({ allow: want, reason: "matched", requires_approval: false });
      }
    });
  }

  for (const [name, load] of engines) {
    it(`regex.template_match runs on the RE2 engine too (${name})`, async () => {
      const decide = await load(wasmOf(TEMPLATE));
      expect(decide({ template: "urn:{(a|aa)+}!", value: `urn:${a(5000)}` })).toMatchObject({ allow: false, reason: "matched" });
      expect(decide({ template: "urn:{(a|aa)+}!", value: `urn:${a(50)}!` })).toMatchObject({ allow: true, reason: "matched" });
    });
  }

  it("the other regex builtins and glob.match answer catastrophic patterns on hostile inputs", () => {
    for (const [pattern, value, want] of CATASTROPHIC) expect(regexMatch(pattern, value), pattern).toBe(want);
    expect(regexFindN("(a|aa)+b", a(5000), -1)).toEqual([]);
    expect(regexFindN("(a|aa)+$", a(5000) + "!" + a(3), -1)).toEqual(["aaa"]);
    // Leftmost-first, greedy: the one iteration of the group takes every x.
    expect(regexFindAllStringSubmatchN("(x+x+)+(y)", `${"x".repeat(4000)}y`, 1).map((m) => m.map((g) => g.length))).toEqual([[4001, 4000, 1]]);
    expect(regexSplit("(a+)+!", `b${a(4000)}c`)).toEqual([`b${a(4000)}c`]);
    expect(regexReplace(`${a(4000)}!`, "^(\\w+\\s?)*$", "x")).toBe(`${a(4000)}!`);
    expect(regexTemplateMatch("id:{(a|aa)+}!", `id:${a(5000)}`, "{", "}")).toBe(false);
    expect(regexTemplateMatch("id:{(a|aa)+}!", `id:${a(5000)}!`, "{", "}")).toBe(true);
    expect(globMatch(`${"*a".repeat(30)}b`, [], a(3000))).toBe(false);
    expect(globMatch(`${"*a".repeat(30)}b`, [], `${a(3000)}b`)).toBe(true);
  });
});
