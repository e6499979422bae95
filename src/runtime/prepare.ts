/**
 * prepare: is the tool known, are the arguments schema-valid, what is the call's
 * identity (fingerprint), and has this operation already been answered?
 * Enters: the trusted context and the untrusted request. Leaves: a PreparedCall,
 * or an envelope (unknown_tool, invalid_arguments, idempotency_conflict, a replay).
 */
import type { TrustedContext } from "../generated-runtime.js";
import type { JsonObject } from "../manifest.js";
import { terminal } from "./envelope.js";
import { fingerprint } from "./fingerprint.js";
import { answerFromRecord } from "./idempotency.js";
import { answer, proceed } from "./phase.js";
import type { Step } from "./phase.js";
import { formatProblems } from "./problems.js";
import type { CallRequest, PreparedCall, RuntimeDeps } from "./types.js";

const MAX_ID_LENGTH = 200;

/** A JSON copy of the arguments: the handler never sees the caller's object, and non-JSON values drop out. */
function jsonCopy(v: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(v ?? null)) as unknown;
  } catch {
    return undefined;
  }
}

const validId = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= MAX_ID_LENGTH;

export async function prepare(deps: RuntimeDeps, ctx: TrustedContext, req: CallRequest): Promise<Step<PreparedCall>> {
  const name = typeof req.tool === "string" ? req.tool : "";
  const tool = Object.prototype.hasOwnProperty.call(deps.manifest.tools, name) ? deps.manifest.tools[name] : undefined;
  if (tool === undefined) {
    return answer(terminal("unknown_tool", `no tool named ${JSON.stringify(name)}; known tools: ${Object.keys(deps.manifest.tools).join(", ")}`), {
      reason: "unknown_tool",
    });
  }
  const invalid = (problems: string[]) =>
    answer(terminal("invalid_arguments", `invalid arguments for ${tool.name}: ${problems.join("; ")}`, { problems }), {
      reason: "invalid_arguments",
    });

  if (req.operation_id !== undefined && !validId(req.operation_id)) {
    return invalid([`operation_id: must be a non-empty string of at most ${MAX_ID_LENGTH} characters`]);
  }
  if (req.approval_id !== undefined && !validId(req.approval_id)) {
    return invalid([`approval_id: must be a non-empty string of at most ${MAX_ID_LENGTH} characters`]);
  }
  const operationId = req.operation_id ?? null;
  if (tool.effect !== "read" && operationId === null) {
    return invalid([`operation_id: required for ${tool.effect} tools (the same id makes a retry safe)`]);
  }

  const args = jsonCopy(req.args);
  const validate = deps.validators[tool.name]?.input;
  if (validate === undefined) throw new Error(`no input validator for ${tool.name}`);
  if (typeof args !== "object" || args === null || Array.isArray(args)) return invalid(["/: must be object"]);
  if (!validate(args)) return invalid(formatProblems(validate.errors));

  const call: PreparedCall = {
    ctx,
    tool,
    args: args as JsonObject,
    fingerprint: fingerprint(ctx.tenant, tool.name, args as JsonObject, tool.fingerprint),
    operation_id: operationId,
    approval_id: req.approval_id ?? null,
  };
  if (operationId !== null) {
    const record = await deps.store.getOperation(ctx.tenant, operationId, deps.clock.now());
    const known = answerFromRecord(record, { tool: tool.name, fingerprint: call.fingerprint, operation_id: operationId });
    if (known !== null) return answer(known, { reason: known.outcome === "terminal_failure" ? known.reason : "replayed" });
  }
  return proceed(call);
}
