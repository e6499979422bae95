/**
 * runSuites: every agent through every scenario of every suite, one fresh surface
 * and tenant per scenario run, scored and summarized per agent.
 */
import { randomUUID } from "node:crypto";
import type { StandaloneValidator, TrustedContext } from "../generated-runtime.js";
import type { Manifest } from "../manifest.js";
import type { PolicyEngine } from "../policy/engine.js";
import { openSqliteStore } from "../store/index.js";
import type { Store } from "../store/store.js";
import type { Agent } from "./agent.js";
import { escrowSurface } from "./escrow-surface.js";
import { builtinPredicates } from "./matchers.js";
import type { ArgPredicate } from "./matchers.js";
import { runScenario } from "./run-scenario.js";
import { scoreTrajectory } from "./score.js";
import type { ScenarioScore } from "./score.js";
import { summarize } from "./summary.js";
import type { AgentResult } from "./summary.js";
import { SurfaceStateError } from "./surface.js";
import type { SurfaceFactory } from "./surface.js";
import { SuiteLoadError } from "./suite-problem.js";
import type { SuiteProblem } from "./suite-problem.js";
import type { Suite } from "./suite-types.js";

export interface RunOptions {
  readonly manifest: Manifest;
  readonly validators: { readonly [tool: string]: { readonly input: StandaloneValidator; readonly output: StandaloneValidator } };
  readonly policy: PolicyEngine;
  /** Surfaces by the name suites give; default { escrow }. */
  readonly surfaces?: Readonly<Record<string, SurfaceFactory>>;
  /** The store the gate uses (shared by all runs; each scenario run has its own tenant). Default: in-memory SQLite, closed after the run. */
  readonly store?: Store;
  readonly predicates?: Readonly<Record<string, ArgPredicate>>;
  /** Who the agent acts for; tenant and run_id are set per scenario run. */
  readonly principal?: { readonly user: string; readonly roles: readonly string[] };
  /** Bound on waiting for calls the agent abandoned (their late effects count). Default 2000. */
  readonly settleMs?: number;
  readonly onScenario?: (score: ScenarioScore) => void;
}

export interface EvalResult {
  readonly suites: readonly { readonly name: string; readonly file: string; readonly scenarios: number }[];
  readonly agents: readonly AgentResult[];
}

export const defaultSurfaces: Readonly<Record<string, SurfaceFactory>> = { escrow: escrowSurface };

/** Builds every scenario's surface once, so a bad `state` is reported (located) before anything runs. */
export function checkSurfaceStates(suites: readonly Suite[], surfaces: Readonly<Record<string, SurfaceFactory>>): SuiteProblem[] {
  const problems: SuiteProblem[] = [];
  for (const suite of suites) {
    const surface = surfaces[suite.surface];
    if (surface === undefined) continue;
    for (const s of suite.scenarios) {
      try {
        surface(s.state);
      } catch (err) {
        if (!(err instanceof SurfaceStateError)) throw err;
        problems.push({ code: "invalid_state", message: `scenario "${s.id}": ${err.message}`, location: s.location, hint: `give state in the form the ${suite.surface} surface reads` });
      }
    }
  }
  return problems;
}

export async function runSuites(suites: readonly Suite[], agents: readonly Agent[], o: RunOptions): Promise<EvalResult> {
  const surfaces = o.surfaces ?? defaultSurfaces;
  const problems = checkSurfaceStates(suites, surfaces);
  if (problems.length > 0) throw new SuiteLoadError(problems);
  const store = o.store ?? openSqliteStore(":memory:");
  const predicates = { ...builtinPredicates, ...(o.predicates ?? {}) };
  const nonce = randomUUID().slice(0, 8);
  const results: AgentResult[] = [];
  try {
    for (const agent of agents) {
      const scores: ScenarioScore[] = [];
      for (const suite of suites) {
        const surface = surfaces[suite.surface];
        if (surface === undefined) throw new Error(`${suite.file}: no surface "${suite.surface}" (known: ${Object.keys(surfaces).join(", ")})`);
        for (const scenario of suite.scenarios) {
          const ctx: TrustedContext = {
            tenant: `eval_${nonce}_${results.length}_${scores.length}`,
            user: o.principal?.user ?? "eval-user",
            roles: [...(o.principal?.roles ?? ["agent"])],
            run_id: `${suite.name}/${scenario.id}`,
          };
          const trajectory = await runScenario(suite, scenario, agent, {
            manifest: o.manifest,
            validators: o.validators,
            policy: o.policy,
            store,
            surface,
            ctx,
            settleMs: o.settleMs ?? 2_000,
          });
          const score = scoreTrajectory(scenario, trajectory, o.manifest, predicates);
          scores.push(score);
          o.onScenario?.(score);
        }
      }
      results.push({ agent: agent.name, scenarios: scores, scores: summarize(scores) });
    }
  } finally {
    if (o.store === undefined) await store.close();
  }
  return { suites: suites.map((s) => ({ name: s.name, file: s.file, scenarios: s.scenarios.length })), agents: results };
}
