// The fast conformance subset in `npm test`: a checked-in sample of cases that
// passed in a full run (fast-subset.json), run in process through the same runner.
import { expect, it } from "vitest";
import { loadCases } from "./cases.js";
import { defaultCaseDir } from "../helpers/conformance-dir.js";
import { readFastSubset } from "./fast-subset.js";
import { readFloor } from "./floor.js";
import { runCase } from "./run-case.js";
import { describeConformance } from "../helpers/conformance.js";

describeConformance("conformance fast subset", () => {
  const ids = new Set(readFastSubset());
  const cases = loadCases(defaultCaseDir).filter((c) => ids.has(c.id));
  it("names only cases that exist, and is non-empty once the floor is above 0", () => {
    expect(cases.length).toBe(ids.size);
    if (readFloor() > 0) expect(cases.length).toBeGreaterThan(0);
  });
  it.each(cases.map((c) => [c.id, c] as const))("%s", async (_id, c) => {
    const outcome = await runCase(c, { optimize: true });
    expect(outcome.reason ?? "").toBe("");
    expect(outcome.status).toBe("passed");
  }, 30_000);
});
