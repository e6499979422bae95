/**
 * toolgate's agent evaluation: scenario suites as YAML data, run through the real
 * gate with scripted surface responses, scored on intent to call, failure-class
 * handling and safety, and reported as a table, JSON or HTML.
 */
export type { Agent, AgentMessage, AgentStep, AgentTool, AgentToolCall, Exchange } from "./agent.js";
export { agentTools, contextFacts, exchanges, userMessage } from "./agent.js";
export { findSuiteFiles, loadSuites, loadSuiteText } from "./load-suite.js";
export type { LoadSuiteOptions } from "./load-suite.js";
export { formatSuiteProblem, isSuiteLoadError, SuiteLoadError } from "./suite-problem.js";
export type { SuiteProblem } from "./suite-problem.js";
export { builtinPredicates } from "./matchers.js";
export type { ArgPredicate, PredicateInput } from "./matchers.js";
export { checkSurfaceStates, defaultSurfaces, runSuites } from "./run-suites.js";
export type { EvalResult, RunOptions } from "./run-suites.js";
export { checkStep, MalformedStepError, MAX_CALLS_PER_STEP, runScenario } from "./run-scenario.js";
export { scoreTrajectory, intentKey } from "./score.js";
export type { FailureScore, IntentScore, SafetyCounts, ScenarioScore } from "./score.js";
export { summarize } from "./summary.js";
export type { AgentResult, ClassRatio, Ratio, Scores } from "./summary.js";
export { escrowSurface } from "./escrow-surface.js";
export { handlerSurface, scriptSurface, SurfaceStateError } from "./surface.js";
export type { SurfaceEffect, SurfaceFactory, SurfaceInstance } from "./surface.js";
export type { Trajectory, TrajectoryCall } from "./trajectory.js";
export * from "./suite-types.js";
export { carefulAgent } from "./agents/careful.js";
export { naiveAgent } from "./agents/naive.js";
export { scriptedAgent } from "./agents/scripted.js";
