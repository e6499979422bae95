/**
 * Measures the compiler against a public Rego corpus checked out outside the
 * repository (nothing of a corpus is kept here). Reports files that parse and
 * check, tests that pass / fail / error, and the remaining causes, most frequent first.
 *
 *   TOOLGATE_CORPUS=/tmp/gatekeeper-library/src TOOLGATE_CORPUS_LAYOUT=dirs \
 *   TOOLGATE_CORPUS_REGO_VERSION=v0 npx tsx bench/corpora/measure.ts
 *
 * TOOLGATE_CORPUS_LAYOUT:
 *   bundle  every .rego file under the root is one policy (default);
 *   dirs    each folder holding .rego files is one policy (its own tests, its own libraries);
 *   cases   YAML case files (`cases: [{modules, query, data, input, want_result | error | no_result}]`),
 *           each case compiled and evaluated on its own.
 * TOOLGATE_CORPUS_REGO_VERSION: v1 (default) or v0.
 * TOOLGATE_CORPUS_SKIP: a regular expression of paths (relative to the root) to leave out.
 * TOOLGATE_CORPUS_VERBOSE=1: print every occurrence with its place as it is met.
 * TOOLGATE_CORPUS_BUILTINS: a module whose default export is custom builtins (`defineBuiltins`),
 *   supplied to check, compile and tests as tools.yaml `policy.builtins` would be (e.g. Regal's own:
 *   bench/corpora/regal-builtins.ts). The build tools' builtins (`rego.parse_module`) are always available.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parse as parseYaml } from "yaml";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../../codegen/compiler/index.js";
import type { RegoVersion } from "../../codegen/compiler/index.js";
import { countResults, loadDataFiles, runPolicyTests } from "../../codegen/policytest/index.js";
import { compileModules, parseModule } from "../../codegen/rego/index.js";
import { createHostBuiltins } from "../../src/policy/host-builtins/index.js";
import { registerParseModule } from "../../codegen/rego-json/parse-module.js";
import { toCustomBuiltins, type CustomBuiltins } from "../../src/policy/builtins/index.js";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import { causeOf, Tally } from "./causes.js";
import { sameValue } from "./values.js";

const root = process.env["TOOLGATE_CORPUS"];
if (root === undefined || root === "") {
  console.error("set TOOLGATE_CORPUS to a folder of .rego files (or YAML case files with TOOLGATE_CORPUS_LAYOUT=cases)");
  process.exit(2);
}
const layout = process.env["TOOLGATE_CORPUS_LAYOUT"] ?? "bundle";
const version: RegoVersion = process.env["TOOLGATE_CORPUS_REGO_VERSION"] === "v0" ? "v0" : "v1";
const skip = process.env["TOOLGATE_CORPUS_SKIP"] === undefined ? null : new RegExp(process.env["TOOLGATE_CORPUS_SKIP"]);
registerParseModule();
const builtinsModule = process.env["TOOLGATE_CORPUS_BUILTINS"];
const custom: { builtins?: CustomBuiltins } =
  builtinsModule === undefined || builtinsModule === ""
    ? {}
    : { builtins: toCustomBuiltins(((await import(pathToFileURL(resolve(builtinsModule)).href)) as { default: unknown }).default) };

function walk(dir: string, keep: (f: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const p = join(dir, name);
    if (skip !== null && skip.test(relative(root!, p))) continue;
    if (statSync(p).isDirectory()) walk(p, keep, out);
    else if (keep(p)) out.push(p);
  }
  return out;
}

const causes = new Tally(process.env["TOOLGATE_CORPUS_VERBOSE"] === "1");
const counts = { files: 0, parse: 0, check: 0, units: 0, unitsBuilt: 0, pass: 0, fail: 0, error: 0, skip: 0 };

async function measureUnit(files: readonly string[], dataPaths: readonly string[]): Promise<void> {
  counts.units++;
  const sources = files.map((file) => ({ file, source: readFileSync(file, "utf8"), regoVersion: version }));
  let parsedAll = true;
  for (const s of sources) {
    counts.files++;
    const r = parseModule(s.source, s.file, { regoVersion: version });
    if (r.errors.length === 0) counts.parse++;
    else {
      parsedAll = false;
      causes.add(`parse: ${causeOf(r.errors[0]!.message)}`, formatDiagnostic(r.errors[0]!));
    }
  }
  const checked = compileModules(sources, custom);
  const bad = new Set(checked.errors.map((e) => e.location.file));
  if (parsedAll) counts.check += sources.filter((s) => !bad.has(s.file)).length;
  if (parsedAll) for (const e of checked.errors) causes.add(`check: ${e.code}: ${causeOf(e.message)}`, formatDiagnostic(e));
  if (checked.errors.length > 0) return;
  const data = loadDataFiles(dataPaths);
  const report = await runPolicyTests({ files, data: data.data, regoVersion: version, ...custom });
  if (report.errors.length > 0) {
    for (const e of report.errors) causes.add(`build: ${e.code}: ${causeOf(e.message)}`, formatDiagnostic(e));
    return;
  }
  counts.unitsBuilt++;
  const c = countResults(report.results);
  counts.pass += c.pass;
  counts.fail += c.fail;
  counts.error += c.error;
  counts.skip += c.skip;
  for (const r of report.results) {
    if (r.status === "error") causes.add(`test error: ${causeOf(r.message ?? "")}`, `${r.test.file}:${r.test.row} ${r.test.name}: ${r.message ?? ""}`);
    if (r.status === "fail") causes.add(`test fail (${r.message === "undefined" ? "undefined" : "false or other value"})`, `${r.test.file}:${r.test.row} ${r.test.name}: ${r.message ?? ""}`);
  }
}

interface YamlCase {
  readonly note?: string;
  readonly modules?: readonly string[];
  readonly query?: string;
  readonly data?: unknown;
  readonly input?: unknown;
  readonly want_result?: unknown;
  readonly no_result?: boolean;
  readonly error?: string;
  readonly skip?: boolean;
}

/** A query that is a single reference (`data.test.p`) gives its value; others give their bindings. */
async function measureCase(file: string, i: number, c: YamlCase): Promise<void> {
  if (c.skip === true || c.modules === undefined || c.query === undefined) {
    counts.skip++;
    return;
  }
  counts.units++;
  const modules = c.modules.map((source, j) => ({ file: `${relative(root!, file)}#${i}/m${j}.rego`, source, regoVersion: version }));
  let parsedAll = true;
  for (const m of modules) {
    counts.files++;
    const r = parseModule(m.source, m.file, { regoVersion: version });
    if (r.errors.length === 0) counts.parse++;
    else {
      parsedAll = false;
      causes.add(`parse: ${causeOf(r.errors[0]!.message)}`, formatDiagnostic(r.errors[0]!));
    }
  }
  const checked = compileModules(modules, custom);
  if (parsedAll) {
    const bad = new Set(checked.errors.map((e) => e.location.file));
    counts.check += modules.filter((m) => !bad.has(m.file)).length;
  }
  const isRef = /^\s*data(\.[A-Za-z_][A-Za-z0-9_]*)*\s*$/.test(c.query);
  const body = isRef ? `__value__ = ${c.query.trim()}` : c.query;
  const expectError = c.error !== undefined;
  const out = compilePolicy({ modules, entrypoints: [], queries: [{ name: "q", body }], strictBuiltinErrors: true, optimize: false, ...custom });
  if (out.wasm === null) {
    if (expectError) counts.pass++;
    else {
      counts.error++;
      for (const e of out.errors.slice(0, 1)) causes.add(`compile: ${e.code}: ${causeOf(e.message)}`, formatDiagnostic(e));
    }
    return;
  }
  counts.unitsBuilt++;
  const inputs = c.input === undefined ? [undefined] : Array.isArray(c.input) && Array.isArray(c.want_result) && c.input.length === c.want_result.length && c.input.length > 1 ? c.input : [c.input];
  const got: unknown[] = [];
  try {
    const host = createHostBuiltins(custom);
    const policy = await loadPolicy(out.wasm, undefined, host.builtins);
    policy.setData((c.data ?? {}) as object);
    for (const input of inputs) {
      host.startEvaluation();
      const rs = policy.evaluate(input === undefined ? undefined : new TextEncoder().encode(JSON.stringify(input)).buffer, "q") as Record<string, unknown>[];
      if (isRef) got.push(...rs.map((r) => r["__value__"]));
      else got.push(...rs);
    }
  } catch (err) {
    if (expectError) counts.pass++;
    else {
      counts.error++;
      causes.add(`eval error: ${causeOf(err instanceof Error ? err.message : String(err))}`, `${file}#${i} ${c.note ?? ""}`);
    }
    return;
  }
  if (expectError) {
    counts.fail++;
    causes.add("fail: an error was expected, evaluation succeeded", `${file}#${i} ${c.note ?? ""}: want error ${JSON.stringify(c.error)}`);
    return;
  }
  const want = c.no_result === true ? [] : inputs.length > 1 ? (c.want_result as unknown[]) : [c.want_result];
  if (got.length === want.length && got.every((g, j) => sameValue(g, want[j]))) counts.pass++;
  else {
    counts.fail++;
    causes.add(`fail: ${got.length === 0 ? "undefined" : "other value"}`, `${file}#${i} ${c.note ?? ""}: got ${JSON.stringify(got).slice(0, 300)}`);
  }
}

async function main(): Promise<void> {
  if (layout === "cases") {
    for (const file of walk(root!, (f) => f.endsWith(".yaml") || f.endsWith(".yml"))) {
      let doc: { cases?: YamlCase[] };
      try {
        doc = parseYaml(readFileSync(file, "utf8")) as { cases?: YamlCase[] };
      } catch {
        causes.add("case file is not YAML");
        continue;
      }
      const cases = doc?.cases ?? [];
      for (let i = 0; i < cases.length; i++) await measureCase(file, i, cases[i]!);
    }
  } else if (layout === "dirs") {
    const byDir = new Map<string, string[]>();
    for (const f of walk(root!, (p) => p.endsWith(".rego"))) {
      const d = f.slice(0, f.lastIndexOf("/"));
      byDir.set(d, [...(byDir.get(d) ?? []), f]);
    }
    for (const [dir, files] of byDir) await measureUnit(files, [dir]);
  } else {
    await measureUnit(walk(root!, (p) => p.endsWith(".rego")), [root!]);
  }
  const total = counts.pass + counts.fail + counts.error;
  console.log(`corpus ${root} (layout ${layout}, Rego ${version})`);
  console.log(`files: ${counts.files}, parse ${counts.parse}, parse and check ${counts.check}`);
  console.log(`${layout === "cases" ? "cases" : "policies"}: ${counts.units}, compiled and loaded ${counts.unitsBuilt}`);
  console.log(`${layout === "cases" ? "cases" : "tests"}: pass ${counts.pass}, fail ${counts.fail}, error ${counts.error} (of ${total}), skipped ${counts.skip}`);
  console.log(`pass rate: ${total === 0 ? "n/a" : `${((100 * counts.pass) / total).toFixed(1)}%`}`);
  console.log("causes (count, first seen):");
  for (const [cause, n] of causes.sorted()) console.log(`  ${String(n).padStart(5)}  ${cause}`);
}

await main();
