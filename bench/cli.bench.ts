// npm run bench:cli [-- --runs N] [-- --compare path/to/other/bin/toolgate.js]
// Wall time of the installed CLI (plain node on dist/, as users run it) for --version,
// --help and codegen --check, next to bare `node -e 0` in the same run: median of N runs,
// interleaved so that load on the machine hits every command alike. `--compare` adds
// the same commands through another toolgate executable (e.g. an older checkout's).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";

const { values } = parseArgs({ options: { runs: { type: "string", default: "7" }, compare: { type: "string" }, "no-build": { type: "boolean", default: false } } });
const runs = Number(values.runs);
const root = new URL("../", import.meta.url).pathname;
const built = join(root, "dist", "src", "cli", "bin.js");

if (!values["no-build"]) {
  const b = spawnSync("npm", ["run", "--silent", "build"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  if (b.status !== 0) throw new Error("npm run build failed");
}
if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build`);

interface Target {
  readonly label: string;
  readonly argv: readonly string[];
  readonly cwd: string;
}
const commands: readonly (readonly string[])[] = [["--version"], ["--help"], ["codegen", "--check"]];
const targets: Target[] = [{ label: "node -e 0", argv: ["-e", "0"], cwd: root }];
for (const c of commands) targets.push({ label: `toolgate ${c.join(" ")}`, argv: [built, ...c], cwd: root });
// The other executable runs in its own checkout, against that checkout's tools.yaml and generated/.
const other = values.compare === undefined ? null : resolve(values.compare);
if (other !== null) for (const c of commands) targets.push({ label: `compare: toolgate ${c.join(" ")}`, argv: [other, ...c], cwd: dirname(dirname(other)) });

const times = new Map<string, number[]>(targets.map((t) => [t.label, []]));
for (let i = 0; i < runs; i++) {
  for (const t of targets) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, t.argv, { cwd: t.cwd, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${t.label} exited ${r.status}: ${r.stderr}`);
    times.get(t.label)?.push(ms);
  }
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const base = median(times.get("node -e 0") ?? []);
console.log(`bench:cli — median of ${runs} runs, interleaved (node ${process.version})`);
for (const t of targets) {
  const m = median(times.get(t.label) ?? []);
  console.log(`  ${t.label.padEnd(40)} ${m.toFixed(0).padStart(7)} ms   ${(m / base).toFixed(2)}x node -e 0`);
}
