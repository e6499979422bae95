/**
 * The sealed `requestState` of an approval round trip (MCP 2026-07-28 `input_required`):
 * HMAC-SHA256 through the SDK's codec, bound to the principal, the tool, the digest of the
 * call's canonical arguments, the operation id, the approval id and an expiry. Every refusal
 * is a `RequestStateError` with a reason a client can branch on; a refused state has no effect.
 */
import { createHash } from "node:crypto";
import { createRequestStateCodec, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { RequestStateCodec } from "@modelcontextprotocol/server";
import type { TrustedContext } from "../generated-runtime.js";
import type { JsonValue } from "../manifest.js";
import { canonicalJson } from "../call-data/canonical-json.js";

/** What the state binds a retry to. */
export interface ApprovalRoundState {
  readonly tenant: string;
  readonly user: string;
  readonly tool: string;
  /** Hex SHA-256 of the canonical JSON of the call's arguments as the client sent them. */
  readonly args_digest: string;
  /** The operation the retry runs: the client's own id, or the one the server minted for a write sent without one. */
  readonly operation_id: string;
  readonly approval_id: string;
  /** Unix milliseconds after which the state is refused. */
  readonly expires_at_ms: number;
}

export type RequestStateRefusal =
  | "request_state_forged"
  | "request_state_expired"
  | "request_state_other_principal"
  | "request_state_other_call"
  | "request_state_used"
  | "request_state_revoked";

/** A refused `requestState`: JSON-RPC -32602 with `data.reason`; nothing ran. */
export class RequestStateError extends ProtocolError {
  constructor(
    readonly reason: RequestStateRefusal,
    message: string,
  ) {
    super(ProtocolErrorCode.InvalidParams, `requestState refused (${reason}): ${message}`, { reason });
  }
}

/** The digest a state binds: the tool's arguments as sent, canonical (RFC 8785), SHA-256. */
export function argumentsDigest(args: JsonValue): string {
  return createHash("sha256").update(canonicalJson(args)).digest("hex");
}

/** The longest a state lives, whatever the approval's own expiry: one day. */
const MAX_STATE_SECONDS = 24 * 60 * 60;

export interface RequestStateSeal {
  seal(state: ApprovalRoundState): Promise<string>;
  /** The state's payload, or a RequestStateError (forged or expired; the caller checks the binding). */
  open(wire: string, nowMs: number): Promise<ApprovalRoundState>;
}

const isState = (v: unknown): v is ApprovalRoundState => {
  if (typeof v !== "object" || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    ["tenant", "user", "tool", "args_digest", "operation_id", "approval_id"].every((k) => typeof s[k] === "string") &&
    typeof s["expires_at_ms"] === "number"
  );
};

/** A seal keyed by `key` (at least 32 bytes; every process that may see a retry needs the same key). */
export function requestStateSeal(key: Uint8Array): RequestStateSeal {
  const codec: RequestStateCodec<ApprovalRoundState> = createRequestStateCodec<ApprovalRoundState>({ key, ttlSeconds: MAX_STATE_SECONDS });
  return {
    seal: (state) => codec.mint(state),
    async open(wire, nowMs) {
      let state: ApprovalRoundState;
      try {
        // No bind callback: the codec ignores the context; the binding is checked field by field by the caller.
        state = await codec.verify(wire, undefined as never);
      } catch (err) {
        const why = err instanceof Error ? err.message : "";
        if (why === "expired") throw new RequestStateError("request_state_expired", "the state is past its expiry; call the tool again without it to start over");
        throw new RequestStateError("request_state_forged", "the state was not issued by this server or was altered; call the tool again without it");
      }
      if (!isState(state)) throw new RequestStateError("request_state_forged", "the state does not carry an approval round; call the tool again without it");
      if (nowMs >= state.expires_at_ms) throw new RequestStateError("request_state_expired", `the state expired at ${new Date(state.expires_at_ms).toISOString()}; call the tool again without it to start over`);
      return state;
    },
  };
}

/** Refuses a state minted for another principal or another call. */
export function checkBinding(state: ApprovalRoundState, ctx: TrustedContext, tool: string, digest: string): void {
  if (state.tenant !== ctx.tenant || state.user !== ctx.user) {
    throw new RequestStateError("request_state_other_principal", "the state was issued to another principal");
  }
  if (state.tool !== tool || state.args_digest !== digest) {
    throw new RequestStateError("request_state_other_call", `the state belongs to another call of ${state.tool}; retry with exactly the arguments of the call that returned it`);
  }
}
