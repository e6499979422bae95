/**
 * The operation id the server mints for a write called without one, for the approval round
 * only: the id is random (128 bits, unguessable) and sealed into the `requestState`, so the
 * retry with that state runs exactly that operation. A call the gate would let through without
 * an approval never runs under a minted id: its client could not retry it safely, so it gets
 * the answer its request deserves (`operation_id` required).
 */
import { randomBytes } from "node:crypto";
import type { TrustedContext } from "../generated-runtime.js";
import type { ToolManifestEntry } from "../manifest.js";
import { gateArguments } from "../adapters/gate-arguments.js";
import type { Envelope } from "../runtime/envelope.js";
import type { Runtime } from "../runtime/runtime.js";
import type { CallRequest } from "../runtime/types.js";

/** Minted ids start with this, so the decision log tells them from the model's own. */
export const MINTED_OPERATION_PREFIX = "mcp_";

export const mintOperationId = (): string => `${MINTED_OPERATION_PREFIX}${randomBytes(16).toString("base64url")}`;

/**
 * A write sent with neither `operation_id` nor `approval_id`, of a tool without a natural key.
 * A call presenting an approval id names an operation the approval already binds: it is never
 * given a fresh id (which would be another operation), and gets today's answer.
 */
export function needsMintedOperation(tool: ToolManifestEntry, request: CallRequest): boolean {
  return gateArguments(tool).operation_id && tool.idempotency_key === undefined && request.operation_id === undefined && request.approval_id === undefined;
}

export interface MintedCall {
  /** The request with the minted operation id (what the state binds and the retry runs). */
  readonly request: CallRequest;
  readonly envelope: Envelope;
}

/**
 * Runs the call under a minted operation id if, and only if, the gate asks for an approval:
 * preflight first (nothing claimed, no handler), then the call itself presenting that pending
 * approval, which stores the paused call (for a host that resumes on decision) and cannot run
 * before the approval is approved, whatever the policy answers meanwhile. Null when no approval
 * was asked for.
 */
export async function callWithMintedOperation(
  runtime: Runtime,
  ctx: TrustedContext,
  request: CallRequest,
  traceparent: { traceparent: string } | undefined,
): Promise<MintedCall | null> {
  const minted: CallRequest = { ...request, operation_id: mintOperationId() };
  const asked = await runtime.preflight(ctx, minted);
  if (asked === null || asked.outcome !== "terminal_failure" || asked.reason !== "approval_required" || asked.approval_id === undefined) return null;
  const envelope = await runtime.call(ctx, { ...minted, approval_id: asked.approval_id }, traceparent);
  return { request: minted, envelope };
}
