/**
 * Rego front-end throughput: parse + check (compileModules) over
 * (a) every conformance case's modules, (b) one generated policy of thousands of rules.
 * Prints KB/s and peak RSS. Run: npm run bench:frontend
 */
import { compileModules, parseModule } from "../codegen/rego/index.js";
import { loadConformanceCases } from "../test/helpers/conformance-modules.js";

function generatedPolicy(rules: number): string {
  const out = ["package bench.generated", "", "import rego.v1", ""];
  for (let i = 0; i < rules; i++) {
    switch (i % 5) {
      case 0:
        out.push(`allow_${i} if {`, `\tinput.tool == "tool_${i}"`, `\tsome r in input.roles`, `\tr == data.roles[${i % 10}]`, `\tcount(input.args) < ${i}`, `}`, "");
        break;
      case 1:
        out.push(`obj_${i}[k] := v if {`, `\tsome k, v in input.m`, `\tv > ${i}`, `\tnot deny_${i}`, `}`, `deny_${i} if input.blocked[_] == "${i}"`, "");
        break;
      case 2:
        out.push(`f_${i}(x) := y if {`, `\ty := x + ${i} * 2`, `} else := 0`, "");
        break;
      case 3:
        out.push(`set_${i} contains x if {`, `\tx := [y | some y in input.xs; y > ${i}][_]`, `\tevery z in input.zs { z != x }`, `}`, "");
        break;
      default:
        out.push(`default val_${i} := false`, `val_${i} := {"n": n, "s": sprintf("%v", [n])} if {`, `\tn := f_${i - 2}(${i})`, `\tstartswith(input.name, "x")`, `}`, "");
    }
  }
  return out.join("\n");
}

function kb(n: number): number {
  return n / 1024;
}

function cpuMs(fn: () => unknown): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

function measure(label: string, bytes: number, runs: number, fn: () => number): void {
  // The first run is a cold start (what `toolgate check` pays once); then warm the JIT up.
  const cold = cpuMs(fn);
  for (let i = 0; i < 3; i++) fn();
  // CPU time of this process, not wall time: the bench machine is shared.
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let errors = 0;
  for (let i = 0; i < runs; i++) errors += fn();
  const wall = (performance.now() - t0) / runs;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1000 / runs;
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(
    `${label.padEnd(44)} ${kb(bytes).toFixed(0).padStart(6)} KB  warm cpu ${cpu.toFixed(1).padStart(7)} ms ${(kb(bytes) / (cpu / 1000)).toFixed(0).padStart(6)} KB/s  cold ${(kb(bytes) / (cold / 1000)).toFixed(0).padStart(6)} KB/s  (wall ${wall.toFixed(0)} ms)  peak RSS ${rssMb.toFixed(0)} MB${errors > 0 ? `  (${errors / runs} with errors)` : ""}`,
  );
}

const cases = loadConformanceCases().filter((c) => c.modules.length > 0);
const confBytes = cases.reduce((n, c) => n + c.modules.reduce((m, x) => m + Buffer.byteLength(x.source), 0), 0);
const gen = generatedPolicy(Number(process.env.BENCH_RULES ?? 5000));
const genBytes = Buffer.byteLength(gen);

console.log(`rego front end (node ${process.version})`);
measure(`conformance: parse only (${cases.length} cases)`, confBytes, 5, () => {
  let bad = 0;
  for (const c of cases) for (const m of c.modules) bad += parseModule(m.source, m.file).errors.length > 0 ? 1 : 0;
  return bad;
});
measure(`conformance: parse + check (${cases.length} cases)`, confBytes, 5, () => {
  let bad = 0;
  for (const c of cases) bad += compileModules(c.modules).errors.length > 0 ? 1 : 0;
  return bad;
});
measure(`generated: parse only (${gen.split("\n").length} lines)`, genBytes, 3, () => (parseModule(gen, "gen.rego").errors.length > 0 ? 1 : 0));
measure(`generated: parse + check`, genBytes, 3, () => (compileModules([{ file: "gen.rego", source: gen }]).errors.length > 0 ? 1 : 0));
