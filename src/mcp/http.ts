/**
 * The MCP Streamable HTTP endpoint, stateless: every request is authenticated by its own
 * bearer token and served by a fresh server instance (the SDK's `createMcpHandler`), so no
 * session can carry one principal's identity into another's request. One endpoint serves
 * 2026-07-28 clients (per-request envelope, `server/discover`) and 2025-11-25 / 2025-06-18
 * clients (the SDK's stateless legacy serving).
 */
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Runtime } from "../runtime/runtime.js";
import { principalFromAuth, verifyBearerToken } from "./bearer.js";
import { hostProblem, localHosts } from "./host-check.js";
import { createMcpServer, INTERNAL_ERROR_TEXT, logToStderr } from "./server.js";
import type { ApprovalLink } from "./tool-result.js";

export interface McpHttpOptions {
  /** The HS256 secret bearer tokens are verified with (`hs256Secret`); approval round states are sealed with a key derived from it. */
  readonly secret: Uint8Array;
  readonly approvalLink?: ApprovalLink;
  /** Endpoint path. Default "/mcp". */
  readonly path?: string;
  /**
   * Host names the endpoint answers to (Host and Origin headers), against DNS rebinding.
   * Default: localhost, 127.0.0.1 and ::1; add the public name when serving behind one.
   */
  readonly allowedHosts?: readonly string[];
  /** Largest request body accepted. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Clock for request-state expiry. Default Date.now. */
  readonly now?: () => number;
  /** Where an unexpected error goes (a store driver's, say); the client gets a fixed text. Default: stderr. */
  readonly onError?: (err: unknown) => void;
}

const jsonError = (res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
};

/** The request-state key: derived from the token secret, so no key is reused across purposes. */
export const requestStateKeyFrom = (secret: Uint8Array): Uint8Array => createHmac("sha256", secret).update("toolgate mcp requestState v1").digest();

export function createMcpHttpHandler(runtime: Runtime, options: McpHttpOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const path = options.path ?? "/mcp";
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  const allowedHosts = options.allowedHosts ?? localHosts;
  const requestStateKey = requestStateKeyFrom(options.secret);
  const onError = options.onError ?? logToStderr;
  const mcp = createMcpHandler(
    ({ era, authInfo }) =>
      createMcpServer(runtime, {
        era,
        requestStateKey,
        // The factory's authInfo is what this handler verified below; no token, no principal.
        principal: () => principalFromAuth(authInfo),
        onError,
        ...(options.approvalLink === undefined ? {} : { approvalLink: options.approvalLink }),
        ...(options.now === undefined ? {} : { now: options.now }),
      }),
    { legacy: "stateless", maxRequestBodySize: limit },
  );
  const serve = toNodeHandler(mcp, { maxRequestBodySize: limit });
  return async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      const badHost = hostProblem(req, allowedHosts);
      if (badHost !== null) return jsonError(res, 403, -32000, `forbidden: ${badHost}`);
      if (url.pathname !== path) return jsonError(res, 404, -32601, `not found: the MCP endpoint is ${path}`);
      const header = req.headers.authorization ?? "";
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      let auth: AuthInfo;
      try {
        if (match === null) throw new Error("missing bearer token: send Authorization: Bearer <token> (a JWT HS256 with tenant, sub, roles, exp, signed with the server's secret)");
        auth = await verifyBearerToken(match[1] as string, options.secret);
      } catch (err) {
        return jsonError(res, 401, -32001, err instanceof Error ? err.message : String(err), {
          "www-authenticate": 'Bearer realm="toolgate", error="invalid_token"',
        });
      }
      const declared = Number(req.headers["content-length"] ?? "0");
      if (Number.isFinite(declared) && declared > limit) return jsonError(res, 413, -32600, `request body larger than ${limit} bytes`);
      // The adapter reads `auth` as verified identity (pass-through); its request type is a structural subset of IncomingMessage.
      await serve(Object.assign(req, { auth }) as Parameters<typeof serve>[0], res);
    } catch (err) {
      onError(err);
      if (!res.headersSent) jsonError(res, 500, -32603, INTERNAL_ERROR_TEXT);
      else res.end();
    }
  };
}

/** Listens on host:port (port 0 picks one); resolves once listening. */
export async function serveMcpHttp(runtime: Runtime, options: McpHttpOptions & { readonly port: number; readonly host?: string }): Promise<HttpServer> {
  const handler = createMcpHttpHandler(runtime, options);
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => resolve());
  });
  return server;
}
