/**
 * preflight: prepare and authorize a call without invoking it, for agent frameworks
 * that ask "does this call need a human?" before they run a tool. It has the same
 * effects as the first two phases of a call and no others: approval_required creates
 * (or finds) the durable pending approval; nothing is claimed and no handler runs.
 * Enters: the trusted context and the untrusted request. Leaves: `null` when the
 * gate would let the call through now, else the envelope a call would answer with.
 */
import type { TrustedContext } from "../generated-runtime.js";
import { authorize } from "./authorize.js";
import type { Envelope } from "./envelope.js";
import type { LogNote } from "./phase.js";
import { prepare } from "./prepare.js";
import type { CallRequest, PreparedCall, RuntimeDeps } from "./types.js";

export interface PreflightResult {
  readonly envelope: Envelope | null;
  readonly prepared: PreparedCall | null;
  readonly note: LogNote | null;
}

export async function preflight(deps: RuntimeDeps, ctx: TrustedContext, req: CallRequest): Promise<PreflightResult> {
  const p = await prepare(deps, ctx, req);
  if (p.kind === "answer") return { envelope: p.envelope, prepared: null, note: p.note };
  const a = await authorize(deps, p.value);
  if (a.kind === "answer") return { envelope: a.envelope, prepared: p.value, note: a.note };
  return { envelope: null, prepared: p.value, note: null };
}
