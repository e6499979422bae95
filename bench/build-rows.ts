// The `npm run bench` rows for `toolgate build` of the shipped policy, in child processes,
// interleaved, median wall time and peak memory (max RSS):
// - the installed CLI (plain node on dist/, as users run it; `build --check` does the whole
//   compile and writes nothing) next to plain node starting (the floor), importing binaryen
//   natively (what any build through binaryen pays before compiling) and `build --optimize`;
// - the checkout CLI (`node bin/toolgate.js`, TypeScript through tsx) next to tsx starting;
// - the module's size from the default build next to the same policy with binaryen's
//   optimiser run over the generated functions (`--optimize`).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { median } from "./rows.js";
import type { BenchRow, RowSource } from "./rows.js";

// Prints the child's peak RSS at exit, whatever it runs. Linux's VmHWM is the peak of this
// program alone; getrusage's maxRSS also counts the forking parent's (the bench process).
const RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  "import { readFileSync } from 'node:fs';" +
    "process.on('exit', () => { let kb = process.resourceUsage().maxRSS;" +
    " try { kb = Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]); } catch {}" +
    " process.stderr.write(`\\nmaxrss ${kb}\\n`); });",
)}`;

interface Run {
  readonly ms: number;
  readonly mb: number;
}

function run(args: readonly string[], okCodes: readonly number[] = [0]): Run {
  const t = performance.now();
  const r = spawnSync(process.execPath, ["--import", RSS_HOOK, ...args], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
  const ms = performance.now() - t;
  if (!okCodes.includes(r.status ?? -1)) throw new Error(`node ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  const kb = Number(/maxrss (\d+)/.exec(r.stderr)?.[1] ?? Number.NaN);
  return { ms, mb: kb / 1024 };
}

const seconds = (xs: readonly Run[]): number => median(xs.map((x) => x.ms)) / 1000;
const megabytes = (xs: readonly Run[]): number => median(xs.map((x) => x.mb));

export const buildRows: RowSource = {
  name: "build",
  async run(ctx) {
    const cli = "dist/src/cli/bin.js";
    if (!existsSync(cli)) return { skipped: `${cli} is missing: run npm run build first (the row measures the installed CLI on plain node)` };
    const runs = ctx.quick ? 1 : 3;
    const out = mkdtempSync(join(tmpdir(), "toolgate-bench-build-"));
    const series = { build: [] as Run[], node: [] as Run[], binaryen: [] as Run[], optimize: [] as Run[], checkout: [] as Run[], tsx: [] as Run[] };
    ctx.log(`build: ${runs} interleaved runs of \`node ${cli} build --check\`, plain node, a native binaryen import, build --optimize, and the checkout CLI through tsx`);
    try {
      for (let i = 0; i < runs; i++) {
        series.node.push(run(["-e", "0"]));
        series.build.push(run([cli, "build", "--check"]));
        series.binaryen.push(run(["--input-type=module", "-e", "await import('binaryen')"]));
        series.optimize.push(run([cli, "build", "--optimize", "--out", out]));
        series.tsx.push(run(["--import", "tsx", "-e", "0"]));
        series.checkout.push(run(["bin/toolgate.js", "build", "--check"]));
      }
      const plainBytes = statSync(join("generated", "policy.wasm")).size;
      const optimizedBytes = statSync(join(out, "policy.wasm")).size;
      const build = `node ${cli} build --check`;
      const installedCli = (measure: string, unit: string, figure: (xs: readonly Run[]) => number, target: string): BenchRow => ({
        what: `toolgate build of the shipped policy (installed CLI, ${measure})`, unit, better: "lower",
        toolgate: { label: build, value: figure(series.build) },
        anchors: [
          { label: "plain node starting (node -e 0)", value: figure(series.node) },
          { label: "importing binaryen natively", value: figure(series.binaryen) },
          { label: "build --optimize (binaryen over the generated functions)", value: figure(series.optimize) },
        ],
        notes: [target],
      });
      const checkout = "node bin/toolgate.js build --check";
      return {
        rows: [
          installedCli("wall", "s", seconds, "target <= 1.5 s wall"),
          installedCli("peak memory", "MB max RSS", megabytes, "target <= 300 MB"),
          {
            what: "toolgate build of the shipped policy (checkout CLI through tsx, wall)", unit: "s", better: "lower",
            toolgate: { label: checkout, value: seconds(series.checkout) },
            anchors: [{ label: "tsx starting (node --import tsx -e 0)", value: seconds(series.tsx) }],
            notes: [`peak memory ${megabytes(series.checkout).toFixed(0)} MB (tsx starting: ${megabytes(series.tsx).toFixed(0)} MB)`],
          },
          {
            what: "policy.wasm of the shipped policy (runtime library + generated code)", unit: "B", better: "lower",
            toolgate: { label: "default build (linked without binaryen)", value: plainBytes },
            anchors: [{ label: "build --optimize (binaryen -O2 over the generated functions)", value: optimizedBytes }],
          },
        ],
      };
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
};
