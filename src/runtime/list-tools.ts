/**
 * listTools: which tools to offer a principal. The shipped decision is evaluated once
 * per tool with a listing input (no arguments, no approval): a tool the policy denies
 * for this principal before it looks at any argument (destructive tools, tools outside
 * the principal's roles) is left out; allow and approval_required keep it. A policy
 * error leaves the tool out (fail closed). Listing grants nothing: every call is still
 * authorized at call time.
 * Enters: the trusted context. Leaves: manifest entries in name order.
 */
import type { TrustedContext } from "../generated-runtime.js";
import type { ToolManifestEntry } from "../manifest.js";
import type { PolicyInput } from "../policy/engine.js";
import { versionsOf } from "../policy/version.js";
import { argsHash, fingerprint } from "../call-data/fingerprint.js";
import type { RuntimeDeps } from "./types.js";

/** The operation id writes carry in the listing input: a real call of a write always has one. */
export const LISTING_OPERATION_ID = "toolgate_listing";

export function listingInput(deps: RuntimeDeps, ctx: TrustedContext, tool: ToolManifestEntry): PolicyInput {
  const versions = versionsOf(deps.policy);
  return {
    tool: tool.name,
    effect: tool.effect,
    args: {},
    fingerprint: fingerprint(ctx.tenant, tool.name, {}, []),
    args_hash: argsHash(ctx.tenant, tool.name, {}),
    operation_id: tool.effect === "read" ? null : LISTING_OPERATION_ID,
    principal: { tenant: ctx.tenant, user: ctx.user, roles: [...ctx.roles] },
    // Listing decides before any call, so no fact is resolved; every call is authorized with its facts.
    context: {},
    approval: null,
    now_ms: deps.clock.now(),
    policy_version: versions.version,
    policy_code_version: versions.code_version,
    policy_data_version: versions.data_version,
  };
}

export async function listTools(deps: RuntimeDeps, ctx: TrustedContext): Promise<ToolManifestEntry[]> {
  const listed: ToolManifestEntry[] = [];
  for (const name of Object.keys(deps.manifest.tools).sort()) {
    const tool = deps.manifest.tools[name];
    if (tool === undefined) continue;
    try {
      const d = await deps.policy.evaluate(listingInput(deps, ctx, tool));
      if (d.allow || d.requires_approval) listed.push(tool);
    } catch {
      // fail closed: a tool the policy cannot answer for is not offered
    }
  }
  return listed;
}
