// `node loaded-modules.mjs <trace file>`: checks the module-load trace of a SQLite-only
// program (written by test/helpers/trace-loads.mjs): SQLite's driver was loaded, and
// neither PostgreSQL's (pg) nor the inbox server's (hono). Prints the packages loaded.
import { readFileSync } from "node:fs";

const [traceFile] = process.argv.slice(2);
const urls = readFileSync(traceFile, "utf8").split("\n").filter((u) => u !== "");
const packageOf = (url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
const loaded = [...new Set(urls.map(packageOf).filter((p) => p !== undefined))].sort();
console.log(`loaded-modules: ${urls.length} modules from ${loaded.length} packages: ${loaded.join(", ")}`);
const failures = [];
if (!loaded.includes("better-sqlite3")) failures.push("better-sqlite3 is not in the trace (is the trace working?)");
for (const name of ["pg", "pg-pool", "hono", "@hono/node-server"]) if (loaded.includes(name)) failures.push(`${name} was loaded`);
for (const f of failures) console.error(`loaded-modules: FAILED: ${f}`);
process.exit(failures.length > 0 ? 1 : 0);
