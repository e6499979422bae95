// npm run bench [-- --quick] [-- --only policy,fuel,gate,runtime,store,limits,large,public,build]
// Every row of the speed table in one process: toolgate's figure next to its anchors measured
// in the same run (hand-written JS, cedar-wasm, the SDK floor, raw better-sqlite3 WAL inserts
// with synchronous FULL and NORMAL, raw `pg` inserts on 1 and 4 connections, a native binaryen
// import, the modules OPA's own compiler built from public Rego) and the ratio. PostgreSQL rows
// need TOOLGATE_PG_URL and the public rows TOOLGATE_BENCH_PUBLIC (bench/public/README.md);
// without them they say so.
// Sources run one after the other; a source that fails is reported and the rest still run.
import { parseArgs } from "node:util";
import { buildRows } from "./build-rows.js";
import { fuelRows } from "./fuel.bench.js";
import { gateRows } from "./gate-rows.js";
import { largeSource } from "./large.bench.js";
import { limitsSource } from "./limits.bench.js";
import { policyRows } from "./policy-rows.js";
import { publicSource } from "./public/source.js";
import { printReport } from "./report.js";
import type { SourceReport } from "./report.js";
import type { RowSource } from "./rows.js";
import { runtimeSource, storeSource } from "./store-rows.js";

const SOURCES: readonly RowSource[] = [policyRows, fuelRows, gateRows, runtimeSource, storeSource, limitsSource, largeSource, publicSource, buildRows];

const { values } = parseArgs({ options: { quick: { type: "boolean", default: false }, only: { type: "string" } } });
const only = values.only === undefined ? null : new Set(values.only.split(","));
const unknown = only === null ? [] : [...only].filter((n) => !SOURCES.some((s) => s.name === n));
if (unknown.length > 0) {
  console.error(`bench: unknown source ${unknown.join(", ")} (have: ${SOURCES.map((s) => s.name).join(", ")})`);
  process.exit(2);
}
const ctx = { quick: values.quick === true, pgUrl: process.env["TOOLGATE_PG_URL"], log: (m: string) => void process.stderr.write(`${m}\n`) };
const reports: SourceReport[] = [];
const started = Date.now();
for (const source of SOURCES) {
  if (only !== null && !only.has(source.name)) continue;
  try {
    reports.push({ source: source.name, result: await source.run(ctx) });
  } catch (err) {
    reports.push({ source: source.name, result: { failed: err instanceof Error ? err.message : String(err) } });
  }
}
console.log(`toolgate bench${ctx.quick ? " --quick" : ""}: node ${process.version}, ${((Date.now() - started) / 1000).toFixed(0)} s; ratios are toolgate's speed (for sizes: economy) relative to the anchor (> 1: toolgate is faster or smaller)\n`);
printReport(reports);
if (reports.some((r) => "failed" in r.result)) process.exitCode = 1;
