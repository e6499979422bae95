/**
 * createMcpServer: the gate's tools as an MCP server (the official SDK's low-level
 * Server, so the manifest's JSON Schemas are advertised as they are). The principal
 * comes from the connection (a verified bearer token, or the launching host for
 * stdio), never from tool arguments; every call goes through `runtime.call`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { TrustedContext } from "../generated-runtime.js";
import type { Runtime } from "../runtime/runtime.js";
import { advertisedInputSchema, toCallRequest } from "../adapters/gate-arguments.js";
import { toolgateVersion } from "../version.js";
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

export interface McpServerOptions {
  readonly principal: McpPrincipal;
  /** The approvals inbox: a base URL (`<base>/approvals/<id>`) or a function of the approval id. */
  readonly approvalLink?: ApprovalLink;
  /** Server name announced to clients. Default "toolgate". */
  readonly name?: string;
}

async function resolvePrincipal(principal: McpPrincipal, connection: McpConnection): Promise<TrustedContext> {
  try {
    return typeof principal === "function" ? await principal(connection) : principal;
  } catch (err) {
    // No principal, no tools: the request fails without touching the gate.
    throw new McpError(ErrorCode.InvalidRequest, `not authenticated: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const connectionOf = (extra: { authInfo?: AuthInfo | undefined; sessionId?: string | undefined }): McpConnection => ({
  ...(extra.authInfo === undefined ? {} : { authInfo: extra.authInfo }),
  ...(extra.sessionId === undefined ? {} : { sessionId: extra.sessionId }),
});

export function createMcpServer(runtime: Runtime, options: McpServerOptions): Server {
  // A tool that declares a gate argument itself cannot be advertised: fail at start-up, not per call.
  for (const tool of Object.values(runtime.manifest.tools)) advertisedInputSchema(tool);

  const server = new Server(
    { name: options.name ?? "toolgate", version: toolgateVersion },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        "Every tool call is authorized by policy right before it runs. Write tools take an operation_id: reuse the same value when retrying a call. " +
        "An approval_required answer carries an approval_id: once a human approved it, call the tool again with the same arguments, operation_id and that approval_id.",
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const ctx = await resolvePrincipal(options.principal, connectionOf(extra));
    const tools = await runtime.listTools(ctx);
    return { tools: tools.map(toMcpTool) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const ctx = await resolvePrincipal(options.principal, connectionOf(extra));
    const name = request.params.name;
    const tool = Object.prototype.hasOwnProperty.call(runtime.manifest.tools, name) ? runtime.manifest.tools[name] : undefined;
    const callRequest = tool === undefined ? { tool: name, args: request.params.arguments ?? {} } : toCallRequest(tool, request.params.arguments ?? {});
    // W3C trace context from the client's request metadata: the gate's span joins the agent's trace.
    const traceparent = request.params._meta?.["traceparent"];
    const envelope = await runtime.call(ctx, callRequest, typeof traceparent === "string" ? { traceparent } : undefined);
    return toToolResult(envelope, options.approvalLink);
  });

  return server;
}
