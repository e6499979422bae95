/**
 * Turns a handler's (or reconciler's) answer into an envelope and the status to
 * record. This is where adversarial responses are caught: a partial batch is never
 * plain success, and a success that names no resource or whose observed state
 * contradicts the call is a silent failure (postcondition).
 */
import type { JsonObject, JsonValue, ToolManifestEntry } from "../manifest.js";
import canonicalize from "canonicalize";
import type { OperationStatus } from "../store/store.js";
import { retryable, terminal } from "./envelope.js";
import type { Envelope } from "./envelope.js";
import { quote, quoteJson } from "../call-data/limits.js";
import { formatProblems } from "../call-data/problems.js";
import { compensationFor } from "./compensation.js";
import type { ToolValidators } from "./types.js";

export interface Classified {
  readonly envelope: Envelope;
  /** What to record: `final` replays forever; `retryable` lets the same operation id try again. */
  readonly status: Exclude<OperationStatus, "in_progress" | "unknown">;
}

export interface ClassifyContext {
  readonly tool: ToolManifestEntry;
  readonly validators: ToolValidators;
  readonly args: JsonObject;
  readonly operation_id: string | null;
  /** The call's tenant, for the compensating operation id. */
  readonly tenant?: string;
  /** Attempts so far including this one; a retryable failure on the last allowed attempt is retry_exhausted. */
  readonly attempt: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
/** JSON-equal; strings, booleans and finite numbers compare as they are (their canonical texts are equal exactly when they are). */
function same(a: unknown, b: unknown): boolean {
  const t = typeof a;
  if (t === typeof b && (t === "string" || t === "boolean" || (t === "number" && Number.isFinite(a) && Number.isFinite(b)))) return a === b;
  return canonicalize(a) === canonicalize(b);
}
const opId = (id: string | null): { operation_id?: string } => (id === null ? {} : { operation_id: id });

const final = (envelope: Envelope): Classified => ({ envelope, status: "final" });

export function classify(result: unknown, c: ClassifyContext): Classified {
  if (!isObject(result) || typeof result.ok !== "boolean") {
    return final(terminal("permanent_error", `${c.tool.name} returned a malformed result`, opId(c.operation_id)));
  }
  const observed = isObject(result.observed_state) ? (result.observed_state as JsonObject) : undefined;
  if (result.ok === false) {
    const name = typeof result.failure === "string" ? result.failure : "";
    const spec = Object.prototype.hasOwnProperty.call(c.tool.failures, name) ? c.tool.failures[name] : undefined;
    const message = typeof result.message === "string" ? `${quote(name, 64)}: ${quote(result.message)}` : quote(name, 64);
    const extra = { ...opId(c.operation_id), ...(observed === undefined ? {} : { observed_state: observed }) };
    if (spec === undefined) {
      return final(terminal("permanent_error", `${c.tool.name} reported an undeclared failure "${quote(name, 64)}"`, { ...extra, failure: quote(name, 64) }));
    }
    if (spec.class === "permanent") return final(terminal("permanent_error", message, { ...extra, failure: name }));
    if (c.attempt >= c.tool.retry.max_attempts && c.operation_id !== null) {
      return final(terminal("retry_exhausted", `${message} (after ${c.attempt} of ${c.tool.retry.max_attempts} attempts)`, { ...extra, failure: name }));
    }
    return { envelope: retryable("retryable_error", message, spec.retry_after_ms, extra), status: "retryable" };
  }
  return final(classifySuccess(result, observed, c));
}

/** The operation id and observed state a failure envelope carries. */
function failureExtra(c: ClassifyContext, observed: JsonObject | undefined): { operation_id?: string; observed_state?: JsonObject } {
  const extra: { operation_id?: string; observed_state?: JsonObject } = {};
  if (c.operation_id !== null) extra.operation_id = c.operation_id;
  if (observed !== undefined) extra.observed_state = observed;
  return extra;
}

function classifySuccess(result: Record<string, unknown>, observed: JsonObject | undefined, c: ClassifyContext): Envelope {
  const failed = result.failed_items;
  if (Array.isArray(failed) && failed.length > 0) {
    // Partial success: the transport succeeded, the intent did not. Never plain success.
    return terminal("permanent_error", `partial success: ${failed.length} item(s) failed`, {
      ...opId(c.operation_id),
      observed_state: { ...(observed ?? {}), failed_items: failed as JsonValue[], value: (result.value ?? null) as JsonValue },
    });
  }
  if (!c.validators.output(result.value)) {
    return terminal("permanent_error", `${c.tool.name} returned output that breaks its schema: ${formatProblems(c.validators.output.errors).join("; ")}`, failureExtra(c, observed));
  }
  const resourceId = typeof result.resource_id === "string" && result.resource_id !== "" ? result.resource_id : undefined;
  const post = c.tool.postcondition;
  if (post !== null) {
    const extra = failureExtra(c, observed);
    if (post.resource_id && resourceId === undefined) {
      return terminal("permanent_error", "silent failure: the tool claimed success but named no resource", extra);
    }
    for (const [field, expected] of Object.entries(post.observed)) {
      const want = "arg" in expected ? c.args[expected.arg] : expected.equals;
      if (observed === undefined || !(field in observed)) {
        return terminal("permanent_error", `silent failure: success without observed ${field}`, extra);
      }
      if (!same(observed[field], want)) {
        // The effect may have landed on a resource: name it and how to undo it.
        const undo = compensationFor(c.tool, c.tenant ?? "", c.operation_id, c.args, resourceId, observed);
        const landed = { ...(resourceId === undefined ? {} : { resource_id: resourceId }), ...(undo === null || c.tenant === undefined ? {} : { compensation: undo }) };
        return terminal(
          "permanent_error",
          `observed state contradicts the claim: ${field} is ${quoteJson(observed[field])}, expected ${quoteJson(want)} (stale or failed effect)${undo === null || c.tenant === undefined ? "" : `; to undo it call ${undo.tool} (or runtime.compensate)`}`,
          { ...extra, ...landed },
        );
      }
    }
  }
  const value = (result.value ?? null) as JsonValue;
  // Two literals rather than a conditional spread: the same keys, in the same order, without copying.
  return resourceId === undefined
    ? { outcome: "success", value, observed_state: observed ?? null, operation_id: c.operation_id, replayed: false }
    : { outcome: "success", value, resource_id: resourceId, observed_state: observed ?? null, operation_id: c.operation_id, replayed: false };
}
