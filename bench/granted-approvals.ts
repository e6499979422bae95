/** Approvals for `count` approved writes, requested through the gate and granted before timing starts; `args` may differ per call (by index). */
import type { TrustedContext } from "../src/generated-runtime.js";
import type { JsonObject } from "../src/manifest.js";
import type { createRuntime } from "../src/runtime/index.js";

export async function grantedApprovals(
  runtime: ReturnType<typeof createRuntime>,
  ctx: TrustedContext,
  tool: string,
  args: JsonObject | ((i: number) => JsonObject),
  count: number,
): Promise<string[]> {
  const approvals: string[] = [];
  for (let i = 0; i < count; i++) {
    const ask = await runtime.call(ctx, { tool, args: typeof args === "function" ? args(i) : args, operation_id: `op-${i}` });
    if (ask.outcome !== "terminal_failure" || ask.approval_id === undefined) throw new Error(`expected approval_required: ${JSON.stringify(ask)}`);
    const d = await runtime.approvals.decide(ask.approval_id, { decision: "approve" }, { tenant: ctx.tenant, user: "bench-approver", roles: ["approver"] });
    if (!d.ok) throw new Error(d.message);
    approvals.push(ask.approval_id);
  }
  return approvals;
}
