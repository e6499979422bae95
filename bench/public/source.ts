// npm run bench -- --only public   (or: npx tsx bench/public/source.ts)
// Public policies next to the modules OPA's own compiler built from the same Rego
// (see README.md): TOOLGATE_BENCH_PUBLIC=<dir> names the directory of cases.
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { printReport } from "../report.js";
import type { BenchRow, RowSource } from "../rows.js";
import { loadCases } from "./case.js";
import { measureCase } from "./measure.js";

/** An error's message; the SDK and policies may throw plain objects, shown as JSON. */
function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

export const PUBLIC_ENV = "TOOLGATE_BENCH_PUBLIC";

export const publicSource: RowSource = {
  name: "public",
  async run(ctx) {
    const dir = process.env[PUBLIC_ENV];
    if (dir === undefined || dir === "") {
      return { skipped: `${PUBLIC_ENV} is not set: no public OPA-built modules to compare with (bench/public/README.md says how to fetch them)` };
    }
    if (!existsSync(dir)) return { skipped: `${PUBLIC_ENV}=${dir}: no such directory (bench/public/README.md)` };
    const rows: BenchRow[] = [];
    const missing: string[] = [];
    const cases = loadCases(dir);
    if (cases.length === 0) return { skipped: `${PUBLIC_ENV}=${dir}: no case directories in it (bench/public/README.md)` };
    for (const c of cases) {
      if ("unusable" in c) {
        missing.push(`public ${c.name}: ${c.unusable}`);
        continue;
      }
      try {
        rows.push(...(await measureCase(c.case, ctx)));
      } catch (err) {
        missing.push(`public ${c.case.name}: ${describeError(err)}`);
      }
    }
    return { rows, missing };
  },
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes("--quick");
  const result = await publicSource.run({ quick, pgUrl: undefined, log: (m) => void process.stderr.write(`${m}\n`) });
  printReport([{ source: "public", result }]);
}
