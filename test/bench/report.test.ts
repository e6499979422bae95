/**
 * The `npm run bench` report: every row with its anchors and ratios; a row or anchor a
 * source could not measure prints a line saying why instead of vanishing; sizes read as
 * smaller/larger, times and rates as faster/slower.
 */
import { describe, expect, it } from "vitest";
import { reportText } from "../../bench/report.js";
import { ratioText } from "../../bench/rows.js";
import type { BenchRow } from "../../bench/rows.js";

const row = (over: Partial<BenchRow>): BenchRow => ({
  what: "a figure",
  unit: "µs/decision",
  better: "lower",
  toolgate: { label: "toolgate", value: 2 },
  anchors: [{ label: "anchor", value: 4 }],
  ...over,
});

describe("bench report", () => {
  it("prints each row with its anchor and ratio", () => {
    const text = reportText([{ source: "policy", result: { rows: [row({})] } }]);
    expect(text).toContain("[policy] a figure");
    expect(text).toMatch(/anchor {4}anchor +4\.00 µs\/decision {3}ratio 2\.00x \(2\.00x faster than anchor\)/);
  });

  it("says which rows were not measured and why", () => {
    const text = reportText([{ source: "store", result: { rows: [row({})], missing: ["approved writes on PostgreSQL: TOOLGATE_PG_URL is not set"] } }]);
    expect(text).toContain("[store] not measured: approved writes on PostgreSQL: TOOLGATE_PG_URL is not set");
  });

  it("a row without an anchor says so, pointing at its note when it has one", () => {
    expect(reportText([{ source: "large", result: { rows: [row({ anchors: [] })] } }])).toContain("anchor    none measured in this run (the source gave no reason)");
    expect(reportText([{ source: "fuel", result: { rows: [row({ anchors: [], notes: ["left out with --quick"] })] } }])).toContain("anchor    none measured in this run: see the note");
  });

  it("skipped and failed sources say why", () => {
    const text = reportText([
      { source: "public", result: { skipped: "TOOLGATE_BENCH_PUBLIC is not set" } },
      { source: "build", result: { failed: "exited 1" } },
    ]);
    expect(text).toContain("[public] skipped: TOOLGATE_BENCH_PUBLIC is not set");
    expect(text).toContain("[build] FAILED: exited 1");
  });

  it("sizes read as smaller or larger, rates by the higher figure", () => {
    expect(ratioText(row({ unit: "MiB" }), { label: "OPA", value: 1 })).toBe("0.50x (2.00x larger than OPA)");
    expect(ratioText(row({ unit: "KiB" }), { label: "OPA", value: 8 })).toBe("4.00x (4.00x smaller than OPA)");
    expect(ratioText(row({ unit: "MB max RSS" }), { label: "native", value: 1 })).toContain("larger than native");
    expect(ratioText(row({ unit: "MiB" }), { label: "OPA", value: 2 })).toBe("1.00x (the same as OPA)");
    expect(ratioText(row({ unit: "calls/s", better: "higher", toolgate: { label: "t", value: 300 } }), { label: "raw", value: 100 })).toBe("3.00x (3.00x faster than raw)");
  });
});
