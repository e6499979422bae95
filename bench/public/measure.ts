/**
 * One public case measured both ways through the unmodified opa-wasm SDK: the module
 * OPA's compiler built and the same Rego compiled by toolgate, same data, same inputs.
 * Enters: a PublicCase. Leaves: rows (CPU time per evaluation per input, Wasm memory
 * after the largest input, module size), each with the OPA-built module as its anchor,
 * and notes when the two disagree on a result.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import { hostBuiltins, implementations } from "../../src/policy/host-builtins/index.js";
import type { HostBuiltinFn } from "../../src/policy/host-builtins/index.js";
import type { BenchRow, Figure } from "../rows.js";
import { median } from "../rows.js";
import type { PublicCase, PublicInput } from "./case.js";

export interface MeasureOptions {
  readonly quick: boolean;
  readonly log: (message: string) => void;
}

interface Subject {
  readonly label: string;
  evaluate(input: unknown): unknown;
  memoryBytes(): number;
}

type LoadedPolicy = Awaited<ReturnType<typeof loadPolicy>>;

const OPA_LABEL = "OPA-built module, same SDK";
const TOOLGATE_LABEL = "toolgate-built module, SDK";

/** The module's memory: the SDK keeps it on the instance but does not declare it. */
const memoryOf = (p: LoadedPolicy): WebAssembly.Memory => (p as unknown as { mem: WebAssembly.Memory }).mem;

/**
 * Builtins for the OPA-built module that neither its Wasm nor the SDK implements
 * (json.match_schema, ...): toolgate's JavaScript implementations under OPA's names,
 * an error making the call undefined as OPA's default is. `used` collects the names called.
 */
function opaHostBuiltins(used: Set<string>): Record<string, HostBuiltinFn> {
  const out: Record<string, HostBuiltinFn> = {};
  for (const [name, fn] of Object.entries(implementations)) {
    out[name] = (...args: unknown[]): unknown => {
      if (args.length === 0 && fn.length > 0) return undefined; // the SDK's load-time probe
      used.add(name);
      try {
        return fn(...args);
      } catch {
        return undefined;
      }
    };
  }
  return out;
}

async function subject(label: string, wasm: Uint8Array, data: Record<string, unknown>, entrypoint: string, builtins: Record<string, HostBuiltinFn>): Promise<Subject> {
  const p = await loadPolicy(wasm, undefined, builtins);
  p.setData(data);
  const mem = memoryOf(p);
  return { label, evaluate: (input) => p.evaluate(input, entrypoint), memoryBytes: () => mem.buffer.byteLength };
}

/** JSON with object keys sorted, so results compare by value. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/** The value with object keys sorted and every array's elements sorted: sets come out of OPA's Wasm in no defined order. */
function unordered(v: unknown): unknown {
  if (Array.isArray(v)) {
    const xs = v.map(unordered);
    const keys = xs.map((x) => JSON.stringify(x));
    return xs.map((x, i) => [keys[i]!, x] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, x]) => x);
  }
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, unordered(o[k])]));
  }
  return v;
}

/** Paths at which two unordered values differ (leaves, or a missing key or element). */
function differences(a: unknown, b: unknown, path: string, out: string[]): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path}: ${a.length} vs ${b.length} elements`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) differences(a[i], b[i], `${path}[${i}]`, out);
    return;
  }
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
      if (!(k in ao) || !(k in bo)) out.push(`${path}.${k}: only in ${k in ao ? "toolgate's" : "OPA's"} result`);
      else differences(ao[k], bo[k], `${path}.${k}`, out);
    }
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${path}: toolgate ${JSON.stringify(a).slice(0, 160)} vs OPA ${JSON.stringify(b).slice(0, 160)}`);
}

/** Empty when both results are the same value; else notes saying how they differ. */
export function compareResults(toolgate: unknown, opa: unknown): string[] {
  if (canonical(toolgate) === canonical(opa)) return [];
  const diffs: string[] = [];
  differences(unordered(toolgate), unordered(opa), "result", diffs);
  if (diffs.length === 0) return ["same values; some arrays list their elements in another order (sets, which OPA's Wasm dumps in no defined order)"];
  return [`RESULTS DIFFER in ${diffs.length} place(s) even with arrays compared as sets; first: ${diffs[0]}`];
}

/** CPU milliseconds of this process: on a shared machine wall time counts other processes too. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Median CPU µs per evaluation of each subject: interleaved rounds (forward, then
 * backward), each a batch long enough to time (at least `minBatchMs`).
 */
function timePerEvaluation(subjects: readonly Subject[], input: unknown, rounds: number, minBatchMs: number): number[] {
  // warm-up for at least one batch's time each: V8 runs new Wasm code in its baseline tier first
  const once = subjects.map((s) => {
    const t = cpuMs();
    let n = 0;
    do {
      s.evaluate(input);
      n++;
    } while (cpuMs() - t < minBatchMs && n < 100_000);
    return Math.max((cpuMs() - t) / n, 0.0001);
  });
  const batch = Math.max(1, Math.ceil(minBatchMs / Math.min(...once)));
  const times = subjects.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    const order = subjects.map((_, k) => k);
    if (r % 2 === 1) order.reverse();
    for (const k of order) {
      const s = subjects[k]!;
      const t = cpuMs();
      for (let i = 0; i < batch; i++) s.evaluate(input);
      times[k]!.push(((cpuMs() - t) * 1000) / batch);
    }
  }
  return times.map(median);
}

const kib = (bytes: number): string => (bytes >= 10 * 1024 ? `${Math.round(bytes / 1024)} KiB` : `${bytes} B`);

/** µs for small policies, ms once the anchor takes a millisecond or more. */
function timeRow(c: PublicCase, entrypoint: string, input: PublicInput, us: readonly number[], notes: string[]): BenchRow {
  const ms = us[1]! >= 1000;
  const scale = (v: number): number => (ms ? v / 1000 : v);
  const figure = (label: string, v: number): Figure => ({ label, value: scale(v) });
  return {
    what: `public ${c.name}: ${entrypoint}, inputs/${input.name} (${kib(input.bytes)}), CPU time per evaluation`,
    unit: ms ? "ms/evaluation" : "µs/evaluation",
    better: "lower",
    toolgate: figure(TOOLGATE_LABEL, us[0]!),
    anchors: [figure(OPA_LABEL, us[1]!)],
    notes,
  };
}

export async function measureCase(c: PublicCase, opts: MeasureOptions): Promise<BenchRow[]> {
  const probe = await loadPolicy(c.opaWasm, undefined, opaHostBuiltins(new Set()));
  const entrypoints = Object.keys(probe.entrypoints);
  const entrypoint = c.entrypoint ?? entrypoints[0];
  if (entrypoint === undefined || !entrypoints.includes(entrypoint)) {
    throw new Error(`the OPA-built module has no entrypoint ${entrypoint ?? "(none)"} (it has: ${entrypoints.join(", ")})`);
  }
  const started = performance.now();
  const compiled = compilePolicy({ modules: c.modules, entrypoints: [entrypoint] });
  const compileMs = performance.now() - started;
  if (compiled.wasm === null) {
    const first = compiled.errors.slice(0, 3).map((d) => formatDiagnostic(d).split("\n")[0]);
    throw new Error(`toolgate does not compile the case's Rego (${compiled.errors.length} errors): ${first.join("; ")}`);
  }
  const toolgateWasm = compiled.wasm;
  opts.log(`public ${c.name}: ${c.modules.length} Rego files, entrypoint ${entrypoint}, toolgate compiled it in ${(compileMs / 1000).toFixed(1)} s`);
  const rows: BenchRow[] = [];
  let peak = { input: "", toolgate: 0, opa: 0 };
  const opaUsed = new Set<string>();
  const opaHost = opaHostBuiltins(opaUsed);
  for (const input of c.inputs) {
    // fresh instances per input: the memory figure is what this input needs
    const subjects = [
      await subject(TOOLGATE_LABEL, toolgateWasm, c.data, entrypoint, { ...hostBuiltins }),
      await subject(OPA_LABEL, c.opaWasm, c.data, entrypoint, opaHost),
    ];
    const notes = compareResults(subjects[0]!.evaluate(input.value), subjects[1]!.evaluate(input.value));
    if (opaUsed.size > 0) notes.push(`the OPA-built module called ${[...opaUsed].sort().join(", ")} through the host (toolgate's JavaScript implementation; the SDK has none)`);
    const us = timePerEvaluation(subjects, input.value, opts.quick ? 3 : 7, opts.quick ? 20 : 100);
    opts.log(`  inputs/${input.name}: toolgate ${us[0]!.toFixed(1)} µs, OPA ${us[1]!.toFixed(1)} µs per evaluation${notes.length > 0 ? ` (${notes[0]!.slice(0, 40)})` : ""}`);
    rows.push(timeRow(c, entrypoint, input, us, notes));
    if (input.bytes >= (c.inputs.find((i) => i.name === peak.input)?.bytes ?? -1)) {
      peak = { input: input.name, toolgate: subjects[0]!.memoryBytes(), opa: subjects[1]!.memoryBytes() };
    }
  }
  const mib = (b: number): number => b / 2 ** 20;
  rows.push({
    what: `public ${c.name}: Wasm memory after evaluating inputs/${peak.input}`,
    unit: "MiB",
    better: "lower",
    toolgate: { label: TOOLGATE_LABEL, value: mib(peak.toolgate) },
    anchors: [{ label: OPA_LABEL, value: mib(peak.opa) }],
  });
  rows.push({
    what: `public ${c.name}: module size`,
    unit: "KiB",
    better: "lower",
    toolgate: { label: TOOLGATE_LABEL, value: toolgateWasm.length / 1024 },
    anchors: [{ label: OPA_LABEL, value: c.opaWasm.length / 1024 }],
  });
  return rows;
}
