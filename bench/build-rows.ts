// The `npm run bench` row for `toolgate build` of the shipped policy: the installed CLI
// (plain node on dist/, as users run it; `build --check` does the whole compile and writes
// nothing) next to importing binaryen natively, in child processes, interleaved, median wall
// time; peak memory (max RSS) of each is reported too.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { median } from "./rows.js";
import type { RowSource } from "./rows.js";

// Prints the child's peak RSS at exit, whatever it runs.
const RSS_HOOK = `data:text/javascript,${encodeURIComponent("process.on('exit', () => process.stderr.write(`\\nmaxrss ${process.resourceUsage().maxRSS}\\n`));")}`;

function run(args: readonly string[]): { ms: number; mb: number } {
  const t = performance.now();
  const r = spawnSync(process.execPath, ["--import", RSS_HOOK, ...args], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  const kb = Number(/maxrss (\d+)/.exec(r.stderr)?.[1] ?? Number.NaN);
  return { ms, mb: kb / 1024 };
}

export const buildRows: RowSource = {
  name: "build",
  async run(ctx) {
    const cli = "dist/src/cli/bin.js";
    if (!existsSync(cli)) return { skipped: `${cli} is missing: run npm run build first (the row measures the installed CLI on plain node)` };
    const runs = ctx.quick ? 1 : 3;
    const build: { ms: number; mb: number }[] = [];
    const imp: { ms: number; mb: number }[] = [];
    ctx.log(`build: ${runs} interleaved runs of \`node ${cli} build --check\` and a native binaryen import`);
    for (let i = 0; i < runs; i++) {
      imp.push(run(["-e", "await import('binaryen')", "--input-type=module"]));
      build.push(run([cli, "build", "--check"]));
    }
    const ms = (xs: { ms: number }[]): number => median(xs.map((x) => x.ms)) / 1000;
    const mb = (xs: { mb: number }[]): number => median(xs.map((x) => x.mb));
    return {
      rows: [
        { what: "toolgate build of the shipped policy (installed CLI, wall)", unit: "s", better: "lower", toolgate: { label: "node dist/src/cli/bin.js build --check", value: ms(build) }, anchors: [{ label: "importing binaryen natively", value: ms(imp) }], notes: ["target <= 1.5 s wall"] },
        { what: "toolgate build of the shipped policy (installed CLI, peak memory)", unit: "MB max RSS", better: "lower", toolgate: { label: "node dist/src/cli/bin.js build --check", value: mb(build) }, anchors: [{ label: "importing binaryen natively", value: mb(imp) }], notes: ["target <= 300 MB"] },
      ],
    };
  },
};
