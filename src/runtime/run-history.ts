/**
 * input.run: the earlier calls of the call's run (tools.yaml `run_history: true`), read from the
 * decision log by the run id of the trusted context (never from the model), oldest first and
 * bounded, each with its tool's effect class and whether the tool declares sensitive fields.
 */
import type { PolicyRunEntry } from "../policy/engine.js";
import type { PreparedCall, RuntimeDeps } from "./types.js";

/** How many earlier calls input.run holds at most (the run's latest). */
export const maxRunHistory = 50;

export async function readRun(deps: RuntimeDeps, call: PreparedCall): Promise<PolicyRunEntry[] | undefined> {
  if (call.tool.run_history !== true) return undefined;
  const entries = await deps.store.readRunHistory({ tenant: call.ctx.tenant, run_id: call.ctx.run_id, limit: maxRunHistory });
  return entries.map((e) => {
    const tool = Object.prototype.hasOwnProperty.call(deps.manifest.tools, e.tool) ? deps.manifest.tools[e.tool] : undefined;
    return {
      tool: e.tool,
      effect: tool?.effect ?? null,
      decision: e.decision,
      outcome: e.outcome,
      reason: e.outcome_reason,
      sensitive: (tool?.sensitive?.length ?? 0) > 0,
      at_ms: e.at_ms,
    };
  });
}
