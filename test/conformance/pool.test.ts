import { expect, it } from "vitest";
import { loadCases } from "./cases.js";
import { defaultCaseDir } from "../helpers/conformance-dir.js";
import { runCasesIsolated } from "./pool.js";
import { describeConformance } from "../helpers/conformance.js";

describeConformance("conformance pool", () => {
  const cases = loadCases(defaultCaseDir).filter((c) => c.topic === "eqexpr").slice(0, 2);
  it("stops a case at its time limit, records it, and goes on with a fresh worker", async () => {
    const out = await runCasesIsolated(cases, { timeoutMs: 1 });
    expect(out.map((o) => o.id)).toEqual(cases.map((c) => c.id));
    expect(out.map((o) => [o.status, o.reason])).toEqual([
      ["failed", "timeout after 1 ms"],
      ["failed", "timeout after 1 ms"],
    ]);
  }, 180_000);
});
