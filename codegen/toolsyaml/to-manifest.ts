import type { CompensationArg, FailureSpec, JsonObject, JsonValue, LimitSpec, Manifest, PostconditionSpec, ToolManifestEntry } from "../../src/manifest.js";
import type { Diagnostic } from "../diagnostics.js";
import { canFailRetryably, errorClassesOf } from "./check-retry.js";
import { parseDuration } from "./duration.js";
import type { RawFailure, RawLimit, RawTool, RawToolsFile } from "./raw-types.js";
import type { YamlSource } from "./yaml-source.js";

export const defaults = {
  entrypoint: "toolgate/authz/decision",
  retention: "24h",
  approvalTtl: "15m",
  timeoutMs: 10_000,
  /** retry.max_attempts: 1 (no retry), or this many for a read or a tool with a retryable failure or thrown error. */
  maxAttempts: 1,
  retryableMaxAttempts: 3,
  retryAfterMs: 1_000,
  backoff: { initial: "200ms", multiplier: 2, max: "5s" },
} as const;

/** Normalises a checked tools.yaml into the runtime manifest (durations in ms, defaults applied). */
export function toManifest(file: RawToolsFile, source: YamlSource): { manifest: Manifest; errors: Diagnostic[] } {
  const errors: Diagnostic[] = [];
  const duration = (text: string, path: (string | number)[]): number => {
    const ms = parseDuration(text);
    if (ms === null) {
      errors.push({ code: "invalid_duration", message: `"${text}" is not a duration`, location: source.locate(path), hint: "write e.g. 500ms, 30s, 15m, 24h or 7d" });
      return 0;
    }
    return ms;
  };
  const limits = toLimits(file, duration);
  const tools: Record<string, ToolManifestEntry> = {};
  // Sorted so the manifest does not depend on YAML key order.
  for (const name of Object.keys(file.tools).sort()) {
    const tool = file.tools[name] as RawTool;
    const p = (...rest: (string | number)[]) => ["tools", name, ...rest];
    const fingerprint = tool.idempotency?.fingerprint ?? [];
    const backoff = tool.retry?.backoff ?? {};
    tools[name] = {
      name,
      description: tool.description,
      effect: tool.effect,
      // Copied as data so agents' adapters advertise the schemas without tools.yaml at run time.
      input_schema: structuredClone(tool.input) as JsonObject,
      output_schema: structuredClone(tool.output) as JsonObject,
      fingerprint: [...fingerprint],
      retention_ms: duration(tool.idempotency?.retention ?? defaults.retention, p("idempotency", "retention")),
      approval:
        tool.effect === "read" && tool.approval === undefined
          ? null
          : {
              preview: [...(tool.approval?.preview ?? fingerprint)],
              ttl_ms: duration(tool.approval?.ttl ?? defaults.approvalTtl, p("approval", "ttl")),
              self_approve: tool.approval?.self_approve ?? false,
              approver_roles: [...(tool.approval?.approver_roles ?? [])],
              // Only when declared, so manifests of catalogs without it stay as they were.
              ...(tool.approval?.binding === undefined ? {} : { binding: tool.approval.binding }),
              ...(tool.approval?.signed === true ? { signed: true } : {}),
              ...(tool.approval?.quorum === undefined || tool.approval.quorum === 1 ? {} : { quorum: tool.approval.quorum }),
              ...(tool.approval?.quorum_roles === undefined ? {} : { quorum_roles: [...tool.approval.quorum_roles] }),
            },
      compensation: tool.compensation ?? null,
      ...(tool.compensation_args === undefined ? {} : { compensation_args: toCompensationArgs(tool.compensation_args) }),
      postcondition: toPostcondition(tool.postcondition),
      timeout_ms: tool.timeout_ms ?? defaults.timeoutMs,
      ...(tool.max_args_bytes === undefined ? {} : { max_args_bytes: tool.max_args_bytes }),
      retry: {
        max_attempts: tool.retry?.max_attempts ?? (canFailRetryably(file, tool) ? defaults.retryableMaxAttempts : defaults.maxAttempts),
        backoff: {
          initial_ms: duration(backoff.initial ?? defaults.backoff.initial, p("retry", "backoff", "initial")),
          multiplier: backoff.multiplier ?? defaults.backoff.multiplier,
          max_ms: duration(backoff.max ?? defaults.backoff.max, p("retry", "backoff", "max")),
        },
      },
      failures: Object.fromEntries(
        Object.keys(tool.failures ?? {})
          .sort()
          .map((f) => [f, toFailure((tool.failures ?? {})[f] as RawFailure)]),
      ),
      ...errorsOf(errorClassesOf(file, tool)),
      // Only when declared, so manifests of catalogs without it stay as they were.
      ...(tool.sensitive === undefined ? {} : { sensitive: [...tool.sensitive] }),
      ...(tool.context === undefined ? {} : { context: Object.keys(tool.context).sort() }),
      ...(tool.idempotency?.key === undefined ? {} : { idempotency_key: [...tool.idempotency.key] }),
      ...limitsOf(name, limits),
      ...(tool.run_history === true ? { run_history: true } : {}),
    };
  }
  return {
    manifest: {
      version: 1,
      // Only when on, so manifests of catalogs without it stay as they were.
      policy: { entrypoint: file.policy?.entrypoint ?? defaults.entrypoint, ...(file.policy?.strict_builtin_errors === true ? { strict_builtin_errors: true } : {}) },
      ...(file.approvals === undefined
        ? {}
        : { approvals: { default_approver_roles: [...(file.approvals.default_approver_roles ?? [])], identity_case: file.approvals.identity_case ?? "sensitive" } }),
      tools,
      ...(Object.keys(limits).length === 0 ? {} : { limits }),
    },
    errors,
  };
}

/** `{ errors }` with the classes sorted by key, or nothing when none is declared (manifests without it stay as they were). */
function errorsOf(classes: Readonly<Record<string, RawFailure>>): { errors?: Record<string, FailureSpec> } {
  const keys = Object.keys(classes).sort();
  return keys.length === 0 ? {} : { errors: Object.fromEntries(keys.map((k) => [k, toFailure(classes[k]!)])) };
}

/** The tools a limit covers: the declaring tool and its `tools:`, sorted without duplicates. */
export const limitTools = (declaring: string, limit: RawLimit): string[] => [...new Set([declaring, ...(limit.tools ?? [])])].sort();

/** Every declared limit by name (sorted), with the tools it covers. */
function toLimits(file: RawToolsFile, duration: (text: string, path: (string | number)[]) => number): Record<string, LimitSpec> {
  const out: Record<string, LimitSpec> = {};
  const found: [string, string][] = [];
  for (const name of Object.keys(file.tools).sort()) {
    for (const limitName of Object.keys(file.tools[name]?.limits ?? {})) if (!found.some(([l]) => l === limitName)) found.push([limitName, name]);
  }
  for (const [limitName, declaring] of found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const raw = (file.tools[declaring]?.limits ?? {})[limitName];
    if (raw === undefined) continue;
    out[limitName] = {
      name: limitName,
      per: [...(raw.per ?? [])],
      window_ms: duration(raw.window, ["tools", declaring, "limits", limitName, "window"]),
      sum: raw.sum ?? null,
      max_sum: raw.max_sum ?? null,
      max_count: raw.max_count ?? null,
      tools: limitTools(declaring, raw),
    };
  }
  return out;
}

/** The tool's `limits` entry: the names of the limits covering it, only when there are some. */
function limitsOf(tool: string, limits: Readonly<Record<string, LimitSpec>>): { limits?: string[] } {
  const names = Object.keys(limits).filter((l) => limits[l]?.tools.includes(tool) === true);
  return names.length === 0 ? {} : { limits: names };
}

function toFailure(raw: RawFailure): FailureSpec {
  const cls = typeof raw === "string" ? raw : raw.class;
  if (cls === "permanent") return { class: "permanent" };
  const after = typeof raw === "string" ? undefined : raw.retry_after_ms;
  return { class: "retryable", retry_after_ms: after ?? defaults.retryAfterMs };
}

function toPostcondition(raw: RawTool["postcondition"]): PostconditionSpec | null {
  if (raw === undefined) return null;
  if (raw === "resource_id") return { resource_id: true, observed: {} };
  const observed: Record<string, { arg: string } | { equals: JsonValue }> = {};
  for (const [field, expected] of Object.entries(raw.observed ?? {})) {
    observed[field] = typeof expected === "string" && expected.startsWith("$args.") ? { arg: expected.slice(6) } : { equals: expected };
  }
  return { resource_id: raw.resource_id ?? false, observed };
}

function toCompensationArgs(raw: Readonly<Record<string, JsonValue>>): Record<string, CompensationArg> {
  const out: Record<string, CompensationArg> = {};
  for (const key of Object.keys(raw).sort()) {
    const v = raw[key] as JsonValue;
    if (v === "$resource_id") out[key] = { from: "resource_id" };
    else if (typeof v === "string" && v.startsWith("$args.")) out[key] = { arg: v.slice(6) };
    else if (typeof v === "string" && v.startsWith("$observed.")) out[key] = { observed: v.slice(10) };
    else out[key] = { equals: v };
  }
  return out;
}
