import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { formatDiagnostic } from "../../../codegen/diagnostics.js";
import { captureQuery, formatEvalResult } from "../../../codegen/compiler/eval-query.js";
import { compilePolicy } from "../../../codegen/compiler/index.js";
import { createHostBuiltins } from "../../policy/host-builtins/index.js";
import { policyBuiltinsForCommand } from "../policy-builtins.js";
import { printExplained } from "../explain-output.js";
import { parseOutputFormat } from "../option-parsers.js";
import type { OutputFormat } from "../option-parsers.js";
import { regoVersionOf, V0_FLAG_HELP } from "./rego-version.js";
import type { RegisterCommand } from "./index.js";

/** .rego files and data.json files under the -d paths. */
function load(paths: readonly string[]): { rego: string[]; data: string[]; missing: string[] } {
  const rego: string[] = [];
  const data: string[] = [];
  const missing: string[] = [];
  const walk = (p: string): void => {
    if (!existsSync(p)) return void missing.push(p);
    if (statSync(p).isDirectory()) {
      for (const n of readdirSync(p).sort()) if (!n.startsWith(".")) walk(join(p, n));
    } else if (p.endsWith(".rego")) rego.push(p);
    else if (basename(p) === "data.json" || paths.includes(p)) data.push(p);
  };
  paths.forEach(walk);
  return { rego, data, missing };
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, "utf8")) as unknown;
}

/** Shallow-deep merge of JSON objects (later files win on scalar clashes). */
function merge(a: unknown, b: unknown): unknown {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object" || Array.isArray(a) || Array.isArray(b)) return b;
  const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v;
  return out;
}

const collect = (v: string, acc: string[]): string[] => [...acc, v];

export const registerEval: RegisterCommand = (program, setExitCode) => {
  program
    .command("eval")
    .description("evaluate a Rego query against policies, compiled to WebAssembly; prints JSON like `opa eval --format json`")
    .argument("<query>", "Rego query, e.g. data.toolgate.authz.decision")
    .option("-d, --data-path <path>", "policy file or folder (.rego, data.json); repeatable", collect, [])
    .option("--input <file>", "input document (JSON file)")
    .option("--data <file>", "base data document (JSON file), merged at the root; repeatable", collect, [])
    .option("--explain", "after the result, show every rule of the policy with its value for this input (rules the query depends on first; functions are not evaluated)")
    .option("--v0-compatible", V0_FLAG_HELP)
    .option("--format <format>", "with --explain: pretty (result, then a table) or json (one document with an `explanation` field)", parseOutputFormat, "pretty")
    .action(async (query: string, opts: { dataPath: string[]; input?: string; data?: string[]; explain?: boolean; format: OutputFormat; v0Compatible?: boolean }) => {
      const { rego, data, missing } = load(opts.dataPath);
      if (missing.length > 0) {
        for (const m of missing) console.error(`${m}: no such file or folder`);
        return setExitCode(1);
      }
      const captured = captureQuery(query);
      if (captured.query === null) {
        for (const e of captured.errors) console.error(formatDiagnostic(e));
        return setExitCode(1);
      }
      const regoVersion = regoVersionOf(opts);
      const modules = rego.map((file) => ({ file, source: readFileSync(file, "utf8"), regoVersion }));
      const custom = await policyBuiltinsForCommand();
      if (custom === null) return setExitCode(1);
      const out = compilePolicy({
        modules,
        entrypoints: [],
        queries: [{ name: "eval", body: captured.query.body }],
        ...custom,
      });
      if (out.wasm === null) {
        for (const e of out.errors) console.error(formatDiagnostic(e));
        return setExitCode(1);
      }
      let base: unknown = {};
      let input: unknown;
      try {
        for (const f of [...data, ...(opts.data ?? [])]) base = merge(base, readJson(f));
        if (opts.input !== undefined) input = readJson(opts.input);
      } catch (e) {
        console.error(`invalid JSON: ${(e as Error).message}`);
        return setExitCode(1);
      }
      const host = createHostBuiltins(custom);
      const policy = await loadPolicy(out.wasm, undefined, host.builtins);
      host.attach({ exports: (policy.wasmInstance as WebAssembly.Instance).exports, memory: policy.mem });
      policy.setData(base as object);
      let result: unknown = null;
      try {
        const rs = policy.evaluate(input === undefined ? undefined : new TextEncoder().encode(JSON.stringify(input)).buffer, "eval") as Record<string, unknown>[];
        result = formatEvalResult(captured.query, rs);
        if (opts.explain !== true) console.log(JSON.stringify(result, null, 2));
      } catch (e) {
        console.error(String(e instanceof Error ? e.message : e));
        setExitCode(1);
      }
      // Also after a failed query: the rules' values show where it went wrong.
      if (opts.explain === true && !(await printExplained(result, { modules, query, data: base, input }, opts.format))) setExitCode(1);
    });
};
