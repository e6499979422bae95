/**
 * prepare: is the tool known, are the arguments schema-valid, what is the call's
 * identity (fingerprint)? It reads nothing from the store.
 * Enters: the trusted context and the untrusted request. Leaves: a PreparedCall,
 * or an envelope (unknown_tool, invalid_arguments).
 */
import type { TrustedContext } from "../generated-runtime.js";
import type { JsonObject, ToolManifestEntry } from "../manifest.js";
import { terminal } from "./envelope.js";
import { callHashes, operationFingerprint } from "../call-data/fingerprint.js";
import { answer, proceed } from "./phase.js";
import type { Step } from "./phase.js";
import { defaultMaxArgsBytes, jsonBytes, maxToolNameLength } from "../call-data/limits.js";
import { isReservedOperationId, naturalKeyPrefix, naturalOperationId } from "./natural-key.js";
import { formatProblems } from "../call-data/problems.js";
import type { CallRequest, PreparedCall, RuntimeDeps } from "./types.js";
import { isCleanIdentity, isUnstorable, unstorablePath } from "../call-data/unstorable-text.js";

/** operation_id and approval_id: longer ones are refused (and never stored). */
export const maxIdLength = 200;
const MAX_ID_LENGTH = maxIdLength;

/** The arguments' JSON text: the handler gets a copy parsed from it, and non-JSON values drop out. */
function jsonText(v: unknown): string | undefined {
  try {
    return JSON.stringify(v ?? null);
  } catch {
    return undefined;
  }
}

function invalidArguments(tool: ToolManifestEntry, problems: string[]): Step<PreparedCall> {
  return answer(terminal("invalid_arguments", `invalid arguments for ${tool.name}: ${problems.join("; ")}`, { problems }), {
    reason: "invalid_arguments",
  });
}

const validId = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= MAX_ID_LENGTH && !isUnstorable(v);

const idRule = `must be a non-empty string of at most ${MAX_ID_LENGTH} characters, without NUL or unpaired surrogates`;
const unstorableRule = "contains a NUL character or an unpaired UTF-16 surrogate (U+D800-U+DFFF), which the gate does not accept; send the text without it";

/** The host's trusted context: its identities must be text a store keeps as given. */
function contextProblem(ctx: TrustedContext): string | null {
  for (const field of ["tenant", "user", "run_id"] as const) {
    if (!isCleanIdentity(ctx[field])) return field;
  }
  return Array.isArray(ctx.roles) && ctx.roles.every(isCleanIdentity) ? null : "roles";
}

export function prepare(deps: RuntimeDeps, ctx: TrustedContext, req: CallRequest): Step<PreparedCall> {
  const name = typeof req.tool === "string" ? req.tool : "";
  const tool = name.length <= maxToolNameLength && Object.prototype.hasOwnProperty.call(deps.manifest.tools, name) ? deps.manifest.tools[name] : undefined;
  if (tool === undefined) {
    // A name longer than any declarable one is not echoed (it would be stored and logged).
    const named = name.length <= maxToolNameLength ? `named ${JSON.stringify(name)}` : `with a name of ${name.length} characters (tool names have at most ${maxToolNameLength})`;
    return answer(terminal("unknown_tool", `no tool ${named}; known tools: ${Object.keys(deps.manifest.tools).join(", ")}`), {
      reason: "unknown_tool",
    });
  }
  const badContext = contextProblem(ctx);
  if (badContext !== null) {
    // The host's error, not the model's: nothing is stored under an identity a store would change or refuse.
    return answer(terminal("permanent_error", `the host's trusted context has an invalid ${badContext} (a control character or an unpaired surrogate); the host must fix its authentication`), {
      reason: "invalid_context",
    });
  }
  if (req.operation_id !== undefined && !validId(req.operation_id)) {
    return invalidArguments(tool, [`operation_id: ${idRule}`]);
  }
  if (req.approval_id !== undefined && !validId(req.approval_id)) {
    return invalidArguments(tool, [`approval_id: ${idRule}`]);
  }
  if (req.operation_id !== undefined && isReservedOperationId(req.operation_id)) {
    return invalidArguments(tool, [`operation_id: ids starting with "${naturalKeyPrefix}" are reserved for natural idempotency keys`]);
  }
  const sentId = req.operation_id ?? null;
  // With a natural key the key names the operation: the id is derived after validation.
  if (tool.effect !== "read" && sentId === null && tool.idempotency_key === undefined) {
    return invalidArguments(tool, [`operation_id: required for ${tool.effect} tools (the same id makes a retry safe)`]);
  }

  // Size first: nothing larger than the cap is validated, fingerprinted, stored or logged.
  const text = jsonText(req.args);
  const cap = tool.max_args_bytes ?? deps.maxArgsBytes ?? defaultMaxArgsBytes;
  // A UTF-16 code unit is at most 3 bytes of UTF-8: a short text needs no byte count.
  const size = text === undefined || text.length * 3 <= cap ? 0 : jsonBytes(text);
  if (size > cap) {
    return invalidArguments(tool, [`/: the arguments are ${size} bytes of JSON; ${tool.name} accepts at most ${cap} (max_args_bytes)`]);
  }
  const args = text === undefined ? undefined : (JSON.parse(text) as unknown);
  const unstorable = text === undefined ? null : unstorablePath(args, text);
  if (unstorable !== null) return invalidArguments(tool, [`${unstorable}: ${unstorableRule}`]);
  const validate = deps.validators[tool.name]?.input;
  if (validate === undefined) throw new Error(`no input validator for ${tool.name}`);
  if (typeof args !== "object" || args === null || Array.isArray(args)) return invalidArguments(tool, ["/: must be object"]);
  if (!validate(args)) return invalidArguments(tool, formatProblems(validate.errors));

  const hashes = callHashes(ctx.tenant, tool.name, args as JsonObject, tool.fingerprint);
  const operationId = naturalOperationId(ctx.tenant, tool, args as JsonObject) ?? sentId;
  const call: PreparedCall = {
    ctx,
    tool,
    args: args as JsonObject,
    fingerprint: hashes.fingerprint,
    args_hash: hashes.args_hash,
    operation_fingerprint: operationId === null ? hashes.fingerprint : operationFingerprint(hashes.fingerprint, ctx.user),
    operation_id: operationId,
    approval_id: req.approval_id ?? null,
  };
  // An operation already answered (replay, conflict) is found by authorize, which reads the record with the rest.
  return proceed(call);
}
