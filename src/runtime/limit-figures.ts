/**
 * A call's limits (tools.yaml `limits:`): its key in each limit (the tenant's store rows are
 * per tenant; the key is the canonical JSON of the `per` arguments), its amount, and the
 * figures the policy sees as `input.limits`. The claim re-reads the figures atomically and is
 * refused when they moved since the policy saw them (the call is then authorized again with the
 * new figures) or when the call does not fit a cap (`limit_exceeded`).
 */
import type { JsonObject, LimitSpec, Manifest, ToolManifestEntry } from "../manifest.js";
import type { LimitClaim, LimitFigures, LimitKey } from "../store/store.js";
import { canonicalJson } from "../call-data/canonical-json.js";
import { terminal } from "./envelope.js";
import type { Envelope } from "./envelope.js";
import type { PreparedCall, RuntimeDeps } from "./types.js";

export type Figures = Readonly<Record<string, LimitFigures>>;

export interface CallLimit extends LimitKey {
  readonly spec: LimitSpec;
  readonly amount: number;
}

/** The limits covering the call, in name order (empty for a tool without limits). */
export const callLimits = (manifest: Manifest, call: PreparedCall): CallLimit[] => limitsOfCall(manifest, call.tool, call.args);

/** The limits covering a call of `tool` with `args` (also what the inbox shows beside a pending approval). */
export function limitsOfCall(manifest: Pick<Manifest, "limits">, tool: Pick<ToolManifestEntry, "limits">, args: JsonObject): CallLimit[] {
  const out: CallLimit[] = [];
  for (const name of tool.limits ?? []) {
    const spec = manifest.limits?.[name];
    if (spec === undefined) continue;
    const values = spec.per.map((f) => (Object.prototype.hasOwnProperty.call(args, f) ? args[f]! : null));
    const raw = spec.sum === null ? 0 : args[spec.sum];
    out.push({ name, key: canonicalJson(values), window_ms: spec.window_ms, spec, amount: typeof raw === "number" && Number.isFinite(raw) ? raw : 0 });
  }
  return out;
}

/** The figures of the call's limits now (the call's own record excluded). */
export async function readFigures(deps: RuntimeDeps, call: PreparedCall, limits: readonly CallLimit[], now: number): Promise<Figures> {
  if (limits.length === 0) return {};
  return await deps.store.readLimitFigures({ tenant: call.ctx.tenant, operation_id: call.operation_id, now_ms: now, keys: limits });
}

/** What the claim enforces: each limit with its caps and the figures the policy saw. */
export const limitClaims = (limits: readonly CallLimit[], seen: Figures | undefined): LimitClaim[] =>
  limits.map((l) => ({
    name: l.name,
    key: l.key,
    window_ms: l.window_ms,
    amount: l.amount,
    max_sum: l.spec.max_sum,
    max_count: l.spec.max_count,
    seen: seen?.[l.name] ?? null,
  }));

/** The answer for a call that does not fit a cap, with the figures it was refused on. */
export function limitExceeded(call: PreparedCall, limits: readonly CallLimit[], name: string, figures: Figures): Envelope {
  const l = limits.find((x) => x.name === name);
  const f = figures[name] ?? { count: 0, sum: 0 };
  const caps: string[] = [];
  if (l?.spec.max_sum !== null && l?.spec.max_sum !== undefined) caps.push(`${l.spec.sum ?? "sum"} ${f.sum} used of ${l.spec.max_sum}, this call ${l.amount}`);
  if (l?.spec.max_count !== null && l?.spec.max_count !== undefined) caps.push(`${f.count} calls of ${l.spec.max_count}`);
  const window = l === undefined ? "" : ` in the last ${formatWindow(l.window_ms)}`;
  return terminal("limit_exceeded", `${call.tool.name} does not fit limit ${name}${window}: ${caps.join("; ")}; nothing ran`, {
    ...(call.operation_id === null ? {} : { operation_id: call.operation_id }),
    limit: { name, count: f.count, sum: f.sum, max_count: l?.spec.max_count ?? null, max_sum: l?.spec.max_sum ?? null },
  });
}

export function formatWindow(ms: number): string {
  // Days only from two on: "24h" reads better than "1d".
  for (const [unit, size] of [["d", 86_400_000], ["h", 3_600_000], ["m", 60_000], ["s", 1_000]] as const) {
    if (ms % size === 0 && (unit !== "d" || ms >= 2 * size)) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
