/**
 * createMcpServer: the gate's tools as an MCP server (the official SDK's low-level v2
 * Server, so the manifest's JSON Schemas are advertised as they are). The principal comes
 * from the connection (a verified bearer token, or the launching host for stdio), never from
 * tool arguments; every call goes through `runtime.call`. One instance serves one era:
 * `modern` (2026-07-28, per-request) or `legacy` (2025-11-25 / 2025-06-18).
 */
import { randomBytes } from "node:crypto";
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import type { AuthInfo, CallToolResult, ClientCapabilities, ServerContext } from "@modelcontextprotocol/server";
import type { TrustedContext } from "../generated-runtime.js";
import type { JsonValue } from "../manifest.js";
import type { Runtime } from "../runtime/runtime.js";
import { withToolCallId } from "../runtime/telemetry.js";
import { advertisedInputSchema, toCallRequest } from "../adapters/gate-arguments.js";
import { toolgateVersion } from "../version.js";
import { BearerTokenError } from "./bearer.js";
import { approvalInputRequired, retryWithState } from "./approval-round.js";
import type { ApprovalRoundDeps, ElicitationSupport, ToolCallAnswer } from "./approval-round.js";
import { callWithMintedOperation, needsMintedOperation } from "./minted-operation.js";
import { argumentsDigest, requestStateSeal } from "./request-state.js";
import { toMcpTool } from "./tool-listing.js";
import { toToolResult } from "./tool-result.js";
import type { ApprovalLink } from "./tool-result.js";

/** What the server knows about the connection a request came on. */
export interface McpConnection {
  /** Set by the HTTP transport from a verified bearer token. */
  readonly authInfo?: AuthInfo;
  readonly sessionId?: string;
}

/** The trusted context of every call, fixed (stdio) or derived from the connection (HTTP). */
export type McpPrincipal = TrustedContext | ((connection: McpConnection) => TrustedContext | Promise<TrustedContext>);

/** The protocol era an instance serves (the SDK's serving entries pick it per request or connection). */
export type McpEra = "legacy" | "modern";

export interface McpServerOptions {
  /**
   * Who calls. A resolver's error never reaches the client as text: it goes to onError; throw a
   * `BearerTokenError` to answer -32600 unauthorized, anything else answers -32603.
   */
  readonly principal: McpPrincipal;
  /** The approvals inbox: a base URL (`<base>/approvals/<id>`) or a function of the approval id. */
  readonly approvalLink?: ApprovalLink;
  /** Server name announced to clients. Default "toolgate". */
  readonly name?: string;
  /**
   * Key (at least 32 bytes) sealing the `requestState` of approval round trips. Every server
   * instance that may receive a retry needs the same key: `createMcpHttpHandler` derives one
   * from the token secret, `serveMcpStdio` keeps one per process. Default: random per instance.
   */
  readonly requestStateKey?: Uint8Array;
  /** The era this instance serves; default "legacy" (what a plain `connect` to a transport speaks). */
  readonly era?: McpEra;
  /** Clock for request-state expiry. Default Date.now. */
  readonly now?: () => number;
  /** Where an error thrown under a request goes (a store driver's, say); the client gets a fixed text. Default: stderr. */
  readonly onError?: (err: unknown) => void;
}

/** The text a client gets for an error the server did not expect: never the error's own text. */
export const INTERNAL_ERROR_TEXT = "internal error (logged by the server)";

export const logToStderr = (err: unknown): void =>
  void process.stderr.write(`toolgate mcp: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);

/** A handler whose unexpected errors go to onError and reach the client as a fixed -32603. */
function guarded<A extends unknown[], R>(onError: (err: unknown) => void, handler: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      onError(err);
      throw new ProtocolError(ProtocolErrorCode.InternalError, INTERNAL_ERROR_TEXT);
    }
  };
}

const instructions =
  "Every tool call is authorized by policy right before it runs. Write tools take an operation_id: reuse the same value when retrying a call. " +
  "An approval_required answer carries an approval_id: once a human approved it, call the tool again with the same arguments, operation_id and that approval_id. " +
  "Clients that declare elicitation get input_required instead: open the approval page (or decide inline where permitted) and retry with the requestState.";

/** The text a client gets when the principal resolver refused it (a `BearerTokenError`): never the resolver's own text. */
export const UNAUTHORIZED_TEXT = "unauthorized: no principal for this request (the reason was logged by the server)";

/**
 * No principal, no tools: the request fails without touching the gate. The resolver's error goes
 * to onError (it may quote a token, a directory's address or a query); the client gets a fixed
 * text: -32600 unauthorized for a refusal (`BearerTokenError`), -32603 for any other failure.
 */
async function resolvePrincipal(principal: McpPrincipal, connection: McpConnection, onError: (err: unknown) => void): Promise<TrustedContext> {
  try {
    return typeof principal === "function" ? await principal(connection) : principal;
  } catch (err) {
    onError(err);
    if (err instanceof BearerTokenError) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, UNAUTHORIZED_TEXT);
    throw new ProtocolError(ProtocolErrorCode.InternalError, INTERNAL_ERROR_TEXT);
  }
}

const connectionOf = (ctx: ServerContext): McpConnection => ({
  ...(ctx.http?.authInfo === undefined ? {} : { authInfo: ctx.http.authInfo }),
  ...(ctx.sessionId === undefined ? {} : { sessionId: ctx.sessionId }),
});

/** The elicitation modes a 2026-07-28 request declared; a 2025-era request gets today's envelope. */
function elicitationSupport(era: McpEra, ctx: ServerContext): ElicitationSupport {
  if (era !== "modern") return { form: false, url: false };
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  const e = caps?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (e === undefined || e === null) return { form: false, url: false };
  // An empty elicitation object means form mode (the spec's backwards-compatible reading).
  const form = e.form !== undefined || e.url === undefined;
  return { form, url: e.url !== undefined };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function createMcpServer(runtime: Runtime, options: McpServerOptions): Server {
  // A tool that declares a gate argument itself cannot be advertised: fail at start-up, not per call.
  for (const tool of Object.values(runtime.manifest.tools)) advertisedInputSchema(tool);
  const era = options.era ?? "legacy";
  const deps: ApprovalRoundDeps = {
    runtime,
    seal: requestStateSeal(options.requestStateKey ?? randomBytes(32)),
    now: options.now ?? Date.now,
    ...(options.approvalLink === undefined ? {} : { approvalLink: options.approvalLink }),
  };

  const server = new Server({ name: options.name ?? "toolgate", version: toolgateVersion }, { capabilities: { tools: { listChanged: false } }, instructions });

  const onError = options.onError ?? logToStderr;
  server.setRequestHandler("tools/list", guarded(onError, async (_request, ctx) => {
    const principal = await resolvePrincipal(options.principal, connectionOf(ctx), onError);
    const tools = await runtime.listTools(principal);
    return { tools: tools.map(toMcpTool) };
  }));

  // The call's span reports the JSON-RPC request id as gen_ai.tool.call.id (the operation id stays toolgate.operation_id).
  server.setRequestHandler("tools/call", guarded(onError, (request, ctx): Promise<ToolCallAnswer> => withToolCallId(String(ctx.mcpReq.id), async () => {
    const principal = await resolvePrincipal(options.principal, connectionOf(ctx), onError);
    const { name } = request.params;
    const raw: unknown = request.params.arguments ?? {};
    if (!isRecord(raw)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "invalid params: arguments must be an object");
    const tool = Object.prototype.hasOwnProperty.call(runtime.manifest.tools, name) ? runtime.manifest.tools[name] : undefined;
    // W3C trace context from the client's request metadata: the gate's span joins the agent's trace.
    const tp = ctx.mcpReq._meta?.["traceparent"] ?? request.params._meta?.["traceparent"];
    const traceparent = typeof tp === "string" ? { traceparent: tp } : undefined;
    if (tool === undefined) return unknownTool(runtime, principal, name);

    const callRequest = toCallRequest(tool, raw);
    const support = elicitationSupport(era, ctx);
    const wireState = ctx.mcpReq.requestState<unknown>();
    if (wireState !== undefined) {
      if (typeof wireState !== "string") throw new ProtocolError(ProtocolErrorCode.InvalidParams, "invalid params: requestState must be a string");
      const outcome = await retryWithState(
        deps,
        { ctx: principal, tool, request: callRequest, argsDigest: argumentsDigest(raw as JsonValue), wireState, inputResponses: ctx.mcpReq.inputResponses, support },
        traceparent,
      );
      return outcome.kind === "input_required" ? outcome.result : toToolResult(outcome.envelope, options.approvalLink);
    }

    // A write without an operation id can still be approved through the protocol: the server mints the id and the state binds it.
    const askable = support.form || (support.url && deps.approvalLink !== undefined);
    const minted = askable && needsMintedOperation(tool, callRequest) ? await callWithMintedOperation(runtime, principal, callRequest, traceparent) : null;
    const gated = minted?.request ?? callRequest;
    const envelope = minted?.envelope ?? (await runtime.call(principal, callRequest, traceparent));
    // An approval binds an operation id (single use); a call without one could never be approved, so it gets the envelope.
    const approvable = gated.operation_id !== undefined && envelope.outcome === "terminal_failure" && envelope.reason === "approval_required" && envelope.approval_id !== undefined;
    if (approvable && askable) {
      const expires = envelope.expires_at === undefined ? Number.NaN : Date.parse(envelope.expires_at);
      const approvalId = envelope.approval_id as string;
      const asked = await approvalInputRequired(deps, {
        ctx: principal,
        tool,
        request: gated,
        argsDigest: argumentsDigest(raw as JsonValue),
        approvalId,
        expiresAtMs: Number.isFinite(expires) ? expires : deps.now() + (tool.approval?.ttl_ms ?? 15 * 60_000),
      }, support);
      if (asked !== null) return asked;
    }
    return toToolResult(envelope, options.approvalLink);
  })));

  return server;
}

/** unknown_tool names only the tools this principal may see (the runtime's message lists the whole manifest). */
async function unknownTool(runtime: Runtime, principal: TrustedContext, name: string): Promise<CallToolResult> {
  const envelope = await runtime.call(principal, { tool: name, args: {} });
  if (envelope.outcome !== "terminal_failure" || envelope.reason !== "unknown_tool") return toToolResult(envelope);
  const visible = (await runtime.listTools(principal)).map((t) => t.name);
  return toToolResult({ ...envelope, message: `no tool ${JSON.stringify(name)}; tools you may call: ${visible.length === 0 ? "none" : visible.join(", ")}` });
}
