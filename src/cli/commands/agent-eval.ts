import { existsSync, writeFileSync } from "node:fs";
import { InvalidArgumentError } from "commander";
import { formatDiagnostic } from "../../../codegen/diagnostics.js";
import { loadToolsFile, schemaId } from "../../../codegen/toolsyaml/index.js";
import { carefulAgent, checkSurfaceStates, defaultSurfaces, SuiteLoadError, formatSuiteProblem, isSuiteLoadError, loadSuites, naiveAgent, runSuites, scriptedAgent } from "../../evals/index.js";
import type { Agent, Suite, SurfaceFactory } from "../../evals/index.js";
import { formatHtml } from "../../evals/report-html.js";
import { formatTable } from "../../evals/report-table.js";
import { thresholdFailures } from "../../evals/thresholds.js";
import type { StandaloneValidator } from "../../generated-runtime.js";
import { loadCommandPolicy } from "../policy-engine.js";
import { importUserModule } from "../user-module.js";
import type { RegisterCommand } from "./index.js";

interface AgentEvalOptions {
  agent: string[];
  config: string;
  policy: string;
  data: string;
  surface?: string;
  format: "table" | "json";
  html?: string;
  minIntent?: number;
  minFailure?: number;
}

/** Built-in agents; `scripted` plays the loaded suites' own scenarios (offline, any tools). */
const builtinAgents: Readonly<Record<string, (suites: readonly Suite[]) => Agent>> = {
  careful: () => carefulAgent(),
  naive: () => naiveAgent(),
  scripted: (suites) => scriptedAgent(suites),
};

const rate = (flag: string) => (v: string): number => {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`${flag} takes a rate between 0 and 1 (e.g. 0.9)`);
  return n;
};
const collect = (v: string, prev: string[]): string[] => [...prev, v];

const isAgent = (v: unknown): v is Agent =>
  typeof v === "object" && v !== null && typeof (v as Agent).name === "string" && typeof (v as Agent).step === "function";

/** A module exporting `agent` (an Agent), or a default export that is one or a function returning one. */
async function loadAgentModule(path: string): Promise<Agent> {
  const mod = await importUserModule(path);
  for (const candidate of [mod.agent, mod.default]) {
    const value = typeof candidate === "function" ? await (candidate as () => unknown)() : candidate;
    if (isAgent(value)) return value;
  }
  throw new Error("exports no agent: export `agent` ({ name, step(messages, tools) }) or a default function returning one");
}

async function loadSurfaceModule(path: string): Promise<Record<string, SurfaceFactory>> {
  const mod = await importUserModule(path);
  const surfaces = mod.surfaces;
  if (typeof surfaces !== "object" || surfaces === null || !Object.values(surfaces).every((f) => typeof f === "function")) {
    throw new Error("exports no surfaces: export `surfaces`, an object of surface name -> (state) => { handlers, reconcilers, effects() }");
  }
  return surfaces as Record<string, SurfaceFactory>;
}

export const registerAgentEval: RegisterCommand = (program, setExitCode) => {
  program
    .command("agent-eval")
    .description("run agents through scenario suites against the gate and score intent to call, failure-class handling and safety")
    .argument("[suites...]", "suite files or directories of *.eval.yaml", ["evals"])
    .option("-a, --agent <name|module>", "careful, naive (scripted for the example escrow tools), scripted (plays each scenario's own expected calls and reactions: any suite, offline), or a module exporting `agent` (repeatable)", collect, [])
    .option("-c, --config <file>", "the tools file", "tools.yaml")
    .option("--policy <file>", "compiled policy (toolgate build)", "generated/policy.wasm")
    .option("--data <file>", "policy data", "policies/data.json")
    .option("--surface <module>", "a module exporting `surfaces` (default: the built-in escrow surface)")
    .option("--format <format>", "table or json", "table")
    .option("--html <file>", "also write an HTML report with a per-class bar chart")
    .option("--min-intent <rate>", "exit 1 when an agent's intent-to-call rate is below this (0..1)", rate("--min-intent"))
    .option("--min-failure <rate>", "exit 1 when an agent's failure-handling rate is below this (0..1)", rate("--min-failure"))
    .action(async (suitePaths: string[], opts: AgentEvalOptions) => {
      if (opts.format !== "table" && opts.format !== "json") {
        console.error(`error: --format takes table or json, not "${String(opts.format)}"`);
        setExitCode(2);
        return;
      }
      const { loaded, errors } = loadToolsFile(opts.config);
      if (loaded === null) {
        for (const e of errors) console.error(formatDiagnostic(e));
        setExitCode(1);
        return;
      }
      const manifest = loaded.manifest;
      const validators: Record<string, { input: StandaloneValidator; output: StandaloneValidator }> = {};
      for (const name of Object.keys(manifest.tools)) {
        const input = loaded.schemas.getSchema(schemaId(name, "input"));
        const output = loaded.schemas.getSchema(schemaId(name, "output"));
        if (input === undefined || output === undefined) throw new Error(`tools.yaml loader did not compile the schemas of ${name}`);
        validators[name] = { input: input as StandaloneValidator, output: output as StandaloneValidator };
      }

      let surfaces: Record<string, SurfaceFactory> = { ...defaultSurfaces };
      // Built-ins are made once the suites are loaded (the scripted agent plays them).
      const agentSpecs: (Agent | ((suites: readonly Suite[]) => Agent))[] = [];
      try {
        if (opts.surface !== undefined) surfaces = await loadSurfaceModule(opts.surface);
      } catch (err) {
        console.error(`${opts.surface}:1:1 surface_module_error: ${err instanceof Error ? err.message : String(err)}\n  hint: see src/evals/README.md for the surface interface`);
        setExitCode(1);
        return;
      }
      for (const a of opts.agent.length === 0 ? ["careful"] : opts.agent) {
        const builtin = builtinAgents[a];
        if (builtin !== undefined) {
          agentSpecs.push(builtin);
          continue;
        }
        if (!existsSync(a)) {
          console.error(`error: --agent "${a}" is neither a built-in agent (${Object.keys(builtinAgents).join(", ")}) nor a module file`);
          setExitCode(2);
          return;
        }
        try {
          agentSpecs.push(await loadAgentModule(a));
        } catch (err) {
          console.error(`${a}:1:1 agent_module_error: ${err instanceof Error ? err.message : String(err)}\n  hint: see src/evals/README.md for the agent interface`);
          setExitCode(1);
          return;
        }
      }

      let suites;
      try {
        suites = loadSuites(suitePaths, { manifest, surfaces: Object.keys(surfaces) });
        const bad = checkSurfaceStates(suites, surfaces);
        if (bad.length > 0) throw new SuiteLoadError(bad);
      } catch (err) {
        if (!isSuiteLoadError(err)) throw err;
        for (const p of err.problems) console.error(formatSuiteProblem(p));
        console.error(`${err.problems.length} problem${err.problems.length === 1 ? "" : "s"} in the suites`);
        setExitCode(1);
        return;
      }
      const policyLoad = await loadCommandPolicy({ wasm: opts.policy, data: opts.data, entrypoint: manifest.policy.entrypoint });
      if ("error" in policyLoad) {
        console.error(policyLoad.error);
        setExitCode(1);
        return;
      }
      const policy = policyLoad.engine;

      const agents = agentSpecs.map((a) => (typeof a === "function" ? a(suites) : a));
      const result = await runSuites(suites, agents, { manifest, validators, policy, surfaces });
      const thresholds = { ...(opts.minIntent === undefined ? {} : { min_intent: opts.minIntent }), ...(opts.minFailure === undefined ? {} : { min_failure: opts.minFailure }) };
      const below = thresholdFailures(result, thresholds);
      if (opts.format === "json") console.log(JSON.stringify({ ...result, thresholds, below_thresholds: below }, null, 2));
      else console.log(formatTable(result));
      if (opts.html !== undefined) {
        writeFileSync(opts.html, formatHtml(result));
        if (opts.format === "table") console.log(`\nwrote ${opts.html}`);
      }
      if (below.length > 0) {
        for (const b of below) console.error(b);
        setExitCode(1);
      }
    });
};
