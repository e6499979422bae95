/**
 * The MCP Streamable HTTP endpoint, stateless: every POST is authenticated by its own
 * bearer token and served by a fresh server and transport, so no session can carry one
 * principal's identity into another's request.
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Runtime } from "../runtime/runtime.js";
import { principalFromAuth, verifyBearerToken } from "./bearer.js";
import { hostProblem, localHosts } from "./host-check.js";
import { createMcpServer } from "./server.js";
import type { ApprovalLink } from "./tool-result.js";

export interface McpHttpOptions {
  /** The HS256 secret bearer tokens are verified with (`hs256Secret`). */
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
}

const jsonError = (res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
};

async function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) return null;
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function createMcpHttpHandler(runtime: Runtime, options: McpHttpOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const path = options.path ?? "/mcp";
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  const allowedHosts = options.allowedHosts ?? localHosts;
  return async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      const badHost = hostProblem(req, allowedHosts);
      if (badHost !== null) return jsonError(res, 403, -32000, `forbidden: ${badHost}`);
      if (url.pathname !== path) return jsonError(res, 404, -32601, `not found: the MCP endpoint is ${path}`);
      if (req.method !== "POST") return jsonError(res, 405, -32000, "method not allowed: this stateless endpoint takes POST only", { allow: "POST" });
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
      const text = await readBody(req, limit);
      if (text === null) return jsonError(res, 413, -32600, `request body larger than ${limit} bytes`);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return jsonError(res, 400, -32700, "parse error: the body is not JSON");
      }
      const server = createMcpServer(runtime, {
        principal: (c) => principalFromAuth(c.authInfo),
        ...(options.approvalLink === undefined ? {} : { approvalLink: options.approvalLink }),
      });
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true }) // no sessionIdGenerator: stateless;
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(Object.assign(req, { auth }), res, body);
    } catch (err) {
      if (!res.headersSent) jsonError(res, 500, -32603, `internal error: ${err instanceof Error ? err.message : String(err)}`);
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
