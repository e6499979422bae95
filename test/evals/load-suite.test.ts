import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { manifest } from "../../generated/index.js";
import { formatSuiteProblem, loadSuiteText, loadSuites } from "../../src/evals/index.js";
import suiteSchema from "../../src/evals/suite.schema.json" with { type: "json" };

const load = (text: string) => loadSuiteText(text, "s.eval.yaml", { manifest, surfaces: ["escrow"] });
const problems = (text: string): string[] => load(text).problems.map(formatSuiteProblem);

const head = "version: 1\nsuite: t\nscenarios:\n";
const scenario = (body: string): string => `${head}  - id: s1\n    intent: { message: "Reserve 1.00 EUR from acc_alice for acc_bob" }\n${body}`;
const callReserve = "    expect: { call: { tool: reserve_funds } }\n";

describe("suite loader", () => {
  it("loads the example suite: at least 24 scenarios, every response class, at least four call-nothing intents", () => {
    const [suite] = loadSuites(["test/evals/"], { manifest });
    expect(suite).toBeDefined();
    const s = suite!;
    expect(s.scenarios.length).toBeGreaterThanOrEqual(24);
    const kinds = new Set(s.scenarios.flatMap((x) => Object.values(x.responses).flat().map((r) => r.kind)));
    for (const k of ["slow", "partial", "silent", "stale", "retryable", "terminal", "timeout", "approval_required"]) expect(kinds, k).toContain(k);
    expect(s.scenarios.some((x) => x.failure_class === null && "call" in x.expect)).toBe(true); // normal
    expect(s.scenarios.filter((x) => "no_call" in x.expect).length).toBeGreaterThanOrEqual(4);
    const why = new Set(s.scenarios.flatMap((x) => ("no_call" in x.expect ? [x.expect.no_call.why] : [])));
    for (const w of ["answer_from_context", "clarify", "forbidden"]) expect(why).toContain(w);
  });

  it("the shipped JSON Schema (what editors use) accepts the example suite and rejects a misspelled field", () => {
    const validate = new Ajv2020({ strict: false }).compile(suiteSchema);
    expect(validate(parse(readFileSync("test/evals/escrow.eval.yaml", "utf8")))).toBe(true);
    expect(validate(parse(scenario(`${callReserve}    reponses: {}\n`)))).toBe(false);
  });

  it("locates shape errors at the offending key or value with a hint", () => {
    expect(problems(scenario(`${callReserve}    reponses: {}\n`))).toEqual([
      's.eval.yaml:7:5 unknown_field: unknown field "reponses" in /scenarios/0\n  hint: remove it, or check its spelling against src/evals/suite.schema.json',
    ]);
    expect(problems(scenario(`${callReserve}    responses: { reserve_funds: [{ kind: sluggish }] }\n    reaction: { class: reconcile }\n`))[0]).toMatch(
      /^s\.eval\.yaml:7:42 unknown_kind: \/scenarios\/0\/responses\/reserve_funds\/0: kind "sluggish" is not one of normal, slow/,
    );
    expect(problems(scenario(`${callReserve}    responses: { reserve_funds: [{ kind: slow }] }\n    reaction: { class: reconcile }\n`))[0]).toMatch(/^s\.eval\.yaml:7:\d+ missing_field: .*needs "delay_ms"/);
    expect(problems(scenario(`    expect: { call: { tool: reserve_funds }, no_call: { why: clarify } }\n`))[0]).toMatch(/one_entry_expected: \/scenarios\/0\/expect must have exactly one entry/);
    expect(problems(`${head}  - id: a\n    id: b\n`)[0]).toMatch(/^s\.eval\.yaml:5:5 duplicate_key/);
    expect(problems("version: 1\nsuite: [\n")[0]).toMatch(/^s\.eval\.yaml:\d+:\d+ yaml_syntax_error/);
  });

  it("checks the scenario against the manifest: tools, declared failures and their class, timings, reactions, predicates", () => {
    const cases: [string, RegExp][] = [
      [`    expect: { call: { tool: reserve_fund } }\n`, /s\.eval\.yaml:6:29 unknown_tool: tool "reserve_fund" is not in the manifest/],
      [`${callReserve}    responses: { reserve_funds: [{ kind: terminal, failure: ledger_down }] }\n    reaction: { class: stop_and_surface }\n`, /undeclared_failure: reserve_funds declares no failure "ledger_down"\n  hint: use one of reserve_funds's failures in tools.yaml: account_frozen, insufficient_funds, ledger_unavailable/],
      [`${callReserve}    responses: { reserve_funds: [{ kind: terminal, failure: ledger_unavailable }] }\n    reaction: { class: stop_and_surface }\n`, /failure_class_mismatch: reserve_funds's failure "ledger_unavailable" is retryable, not permanent/],
      [`${callReserve}    responses: { reserve_funds: [{ kind: slow, delay_ms: 10 }] }\n    reaction: { class: retry_same_operation }\n`, /slow_out_of_range: a slow answer after 10 ms must be longer than the agent's patience \(1000 ms\) and shorter than reserve_funds's timeout \(5000 ms\)/],
      [`${callReserve}    responses: { reserve_funds: [timeout] }\n`, /s\.eval\.yaml:4:9 missing_reaction: scenario "s1" scripts a timeout response of reserve_funds but states no expected reaction/],
      [`${callReserve}    reaction: { class: stop_and_surface }\n`, /reaction_without_failure/],
      [`${callReserve}    responses: { get_account: [approval_required] }\n    reaction: { class: wait_for_approval }\n`, /approval_on_read: get_account is a read/],
      [`${callReserve}    responses: { reserve_funds: [timeout] }\n    reaction: { class: reconcile, read: freeze_account }\n`, /reconcile_not_a_read: reconcile reads state, but freeze_account is a reversible_write/],
      [`    expect: { call: { tool: reserve_funds, args: { predicate: looks_right } } }\n`, /unknown_predicate: predicate "looks_right" is not registered\n  hint: use one of: grounded_ids, non_empty/],
      [`    tools: [get_account]\n${callReserve}`, /tool_not_offered: "reserve_funds" is expected but not among this scenario's tools/],
      [`    expect: { call: { tool: reserve_funds, args: { schema: { type: objekt } } } }\n`, /invalid_matcher_schema: argument schema does not compile/],
    ];
    for (const [body, want] of cases) expect(problems(scenario(body)).join("\n"), body).toMatch(want);
    expect(problems(`${head}  - id: s1\n    intent: { message: a }\n    expect: { no_call: { why: no_action } }\n  - id: s1\n    intent: { message: b }\n    expect: { no_call: { why: no_action } }\n`)[0]).toMatch(/s\.eval\.yaml:7:9 duplicate_scenario: scenario id "s1" is used twice/);
    expect(problems(`${head.replace("scenarios:", "surface: bank\nscenarios:")}  - id: s1\n    intent: { message: a }\n    expect: { no_call: { why: no_action } }\n`)[0]).toMatch(/unknown_surface: surface "bank" is not known here/);
  });

  it("names a missing path and an empty directory", () => {
    expect(() => loadSuites(["no/such/dir"], { manifest })).toThrow(/no\/such\/dir:1:1 file_not_found/);
    expect(() => loadSuites(["test/evals/../../policies"], { manifest })).toThrow(/no_suites: .* holds no \*\.eval\.yaml file/);
  });
});
