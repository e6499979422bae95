/**
 * Front-end counts over OPA's conformance cases: every case's modules are
 * compiled together (cases may split a package over several modules). Cases that
 * expect a rego_* error must be rejected with that code; all others must pass.
 */
import { expect, it } from "vitest";
import { compileModules, compileQuery, parseQuery } from "../../codegen/rego/index.js";
import { loadConformanceCases } from "../helpers/conformance-modules.js";
import { describeConformance } from "../helpers/conformance.js";

describeConformance("conformance front end", () => {
  const cases = loadConformanceCases().filter((c) => c.modules.length > 0);

  it("accepts at least 98% of the expected-valid cases and rejects rego_* error cases with their code", () => {
    const valid = cases.filter((c) => c.wantErrorCode === null || !c.wantErrorCode.startsWith("rego_"));
    const invalid = cases.filter((c) => c.wantErrorCode !== null && c.wantErrorCode.startsWith("rego_"));
    const failures: string[] = [];
    let modules = 0;
    let queryFailures = 0;
    for (const c of valid) {
      modules += c.modules.length;
      const r = compileModules(c.modules);
      if (r.program === null) {
        failures.push(`${c.note}: ${r.errors[0]?.code} ${r.errors[0]?.message}`);
        continue;
      }
      if (c.query !== null) {
        const q = parseQuery(c.query);
        if (q.body === null || compileQuery(r.program, q.body).query === null) queryFailures++;
      }
    }
    let rejected = 0;
    for (const c of invalid) if (compileModules(c.modules).errors.some((e) => e.code === c.wantErrorCode)) rejected++;
    const passed = valid.length - failures.length;
    console.log(
      `front end: ${passed}/${valid.length} expected-valid cases (${modules} modules) compile (${((100 * passed) / valid.length).toFixed(1)}%), ` +
        `${valid.length - queryFailures - failures.length} queries compile; ${rejected}/${invalid.length} rego_* error cases rejected with their code` +
        (failures.length > 0 ? `\n  failing: ${failures.join("\n  failing: ")}` : ""),
    );
    expect(passed / valid.length).toBeGreaterThanOrEqual(0.98);
    expect(queryFailures).toBe(0);
    expect(rejected).toBe(invalid.length);
  });
});
