/**
 * bench:runtime and bench:store in `npm run bench`: their rows (one figure, one anchor,
 * an optional target) in the shared row shape of bench/rows.ts.
 */
import type { BenchRow as StoreRow } from "./store-anchors.js";
import type { BenchRow, RowSource } from "./rows.js";
import { chainBenchRows } from "./chain.bench.js";
import { runtimeBenchRows } from "./runtime.bench.js";
import { sqliteCeilingRows } from "./sqlite-ceiling.js";
import { storeAloneRows, storeBenchRows } from "./store.bench.js";

function toRow(r: StoreRow): BenchRow {
  // Rates ("calls/s", "calls/CPU-s") are better higher; times and sizes lower.
  const perSecond = /\/(?:CPU-)?s$/.test(r.unit);
  return {
    what: `${r.name} (${r.group})`,
    unit: r.unit,
    better: perSecond ? "higher" : "lower",
    toolgate: { label: "toolgate", value: r.value },
    anchors: r.anchor === null ? [] : [{ label: r.anchor.name, value: r.anchor.value }],
    ...(r.target === undefined && r.note === undefined ? {} : { notes: [...(r.target === undefined ? [] : [`target ${r.target}`]), ...(r.note === undefined ? [] : [r.note])] }),
  };
}

export const runtimeSource: RowSource = {
  name: "runtime",
  async run(ctx) {
    const rows = await runtimeBenchRows(ctx.quick ? { n: 300, rounds: 3, warmup: 100 } : {});
    return { rows: rows.map(toRow) };
  },
};

export const storeSource: RowSource = {
  name: "store",
  async run(ctx) {
    const rows = [
      ...(await storeBenchRows(ctx.quick ? { calls: 300, workers: [1, 2, 4], rounds: 1 } : {})),
      ...(await storeAloneRows(ctx.quick ? { reads: 2_000, writes: 300, rounds: 3 } : {})),
      ...sqliteCeilingRows(ctx.quick ? { writes: 1_000, rounds: 3 } : {}),
      ...(await chainBenchRows(ctx.quick ? { entries: 1_000, rounds: 3 } : {})),
    ];
    const missing = ctx.pgUrl === undefined ? ["approved writes on PostgreSQL with 1, 2, 4, 8 workers (and the raw pg anchors): TOOLGATE_PG_URL is not set"] : [];
    return { rows: rows.map(toRow), missing };
  },
};
