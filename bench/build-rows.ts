// The `npm run bench` rows for `toolgate build` of the shipped policy, in child processes,
// interleaved, median wall time and peak memory (max RSS):
// - the installed CLI (plain node on dist/, as users run it; `build --check` does the whole
//   compile and writes nothing) next to plain node starting (the floor), importing binaryen
//   natively (what any build through binaryen pays before compiling) and `build --optimize`;
// - the checkout CLI (`node bin/toolgate.js`, TypeScript through tsx) next to tsx starting;
// - the module's size from the default build next to the same policy with binaryen's
//   optimiser run over the generated functions (`--optimize`) and linked with the whole
//   runtime library (no dead-code elimination);
// - loading the module (WebAssembly.compile + instantiate + the SDK's loadPolicy), in this
//   process, interleaved, next to the same policy linked with the whole runtime library.
//
//   npx tsx bench/build-rows.ts [file.rego ... --entrypoint pkg/rule]   (size and load only)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../codegen/compiler/index.js";
import { keepWholeRuntime } from "../codegen/wasm/link/index.js";
import { hostBuiltins } from "../src/policy/host-builtins/index.js";
import { median } from "./rows.js";
import type { BenchRow, RowSource } from "./rows.js";

export interface SourceModule {
  readonly file: string;
  readonly source: string;
}

/** One policy's module size and load time, linked as built and with the whole runtime library, measured in this process. */
export interface DeadCodeFigures {
  readonly bytes: number;
  readonly wholeBytes: number;
  /** Median ms of WebAssembly.compile alone. */
  readonly compileMs: number;
  readonly wholeCompileMs: number;
  /** Median ms of the SDK's loadPolicy (compile, instantiate, its builtins/entrypoints/heap calls). */
  readonly loadMs: number;
  readonly wholeLoadMs: number;
}

/** A copy of `wasm` with a custom section holding `n`: the same code under new bytes, so the engine compiles it afresh. */
function distinct(wasm: Uint8Array, n: number): Uint8Array<ArrayBuffer> {
  const name = new TextEncoder().encode("bench-nonce");
  const payload = [name.length, ...name, n & 0x7f, (n >> 7) & 0x7f, (n >> 14) & 0x7f];
  const out = new Uint8Array(wasm.length + 2 + payload.length);
  out.set(wasm);
  out.set([0, payload.length, ...payload], wasm.length);
  return out;
}

function compileWith(modules: readonly SourceModule[], entrypoint: string, whole: boolean): Uint8Array {
  keepWholeRuntime(whole);
  try {
    const r = compilePolicy({ modules, entrypoints: [entrypoint] });
    if (r.wasm === null) throw new Error(`the policy does not compile: ${r.errors.length} errors`);
    return r.wasm;
  } finally {
    keepWholeRuntime(false);
  }
}

export async function measureDeadCode(modules: readonly SourceModule[], entrypoint: string, rounds: number): Promise<DeadCodeFigures> {
  const variants = [compileWith(modules, entrypoint, false), compileWith(modules, entrypoint, true)];
  const compile = variants.map(() => [] as number[]);
  const load = variants.map(() => [] as number[]);
  let nonce = 0;
  for (let r = -2; r < rounds; r++) { // two warm-up rounds
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) {
      let t = performance.now();
      await WebAssembly.compile(distinct(variants[k]!, nonce++));
      const compiled = performance.now() - t;
      const bytes = distinct(variants[k]!, nonce++);
      t = performance.now();
      await loadPolicy(bytes, undefined, { ...hostBuiltins });
      const loaded = performance.now() - t;
      if (r >= 0) {
        compile[k]!.push(compiled);
        load[k]!.push(loaded);
      }
    }
  }
  return {
    bytes: variants[0]!.byteLength, wholeBytes: variants[1]!.byteLength,
    compileMs: median(compile[0]!), wholeCompileMs: median(compile[1]!),
    loadMs: median(load[0]!), wholeLoadMs: median(load[1]!),
  };
}

function shippedPolicy(): { modules: SourceModule[]; entrypoint: string } {
  return { modules: [{ file: "policies/authz.rego", source: readFileSync("policies/authz.rego", "utf8") }], entrypoint: "toolgate/authz/decision" };
}

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
      const shipped = shippedPolicy();
      const dce = await measureDeadCode(shipped.modules, shipped.entrypoint, ctx.quick ? 10 : 40);
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
            anchors: [
              { label: "build --optimize (binaryen -O2 over the generated functions)", value: optimizedBytes },
              { label: "linked with the whole runtime library (no dead-code elimination)", value: dce.wholeBytes },
            ],
          },
          {
            what: "loading the shipped policy (WebAssembly.compile + instantiate + SDK loadPolicy)", unit: "ms", better: "lower",
            toolgate: { label: "default build", value: dce.loadMs },
            anchors: [{ label: "linked with the whole runtime library", value: dce.wholeLoadMs }],
            notes: [`WebAssembly.compile alone: ${dce.compileMs.toFixed(2)} ms vs ${dce.wholeCompileMs.toFixed(2)} ms; medians of interleaved in-process rounds`],
          },
        ],
      };
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--entrypoint");
  const files = at < 0 ? args : args.filter((_, i) => i !== at && i !== at + 1);
  const policy = files.length === 0
    ? shippedPolicy()
    : { modules: files.map((file) => ({ file, source: readFileSync(file, "utf8") })), entrypoint: at < 0 ? "" : args[at + 1]! };
  const f = await measureDeadCode(policy.modules, policy.entrypoint, 40);
  const ratio = (a: number, b: number): string => (b / a).toFixed(2);
  console.log(`module size: ${f.bytes} B (whole runtime ${f.wholeBytes} B, ${ratio(f.bytes, f.wholeBytes)}x smaller)`);
  console.log(`WebAssembly.compile: ${f.compileMs.toFixed(3)} ms (whole runtime ${f.wholeCompileMs.toFixed(3)} ms, ${ratio(f.compileMs, f.wholeCompileMs)}x faster)`);
  console.log(`SDK loadPolicy: ${f.loadMs.toFixed(3)} ms (whole runtime ${f.wholeLoadMs.toFixed(3)} ms, ${ratio(f.loadMs, f.wholeLoadMs)}x faster)`);
}
