/** Raw MCP over HTTP for tests that must control every byte a client sends (state, envelope, types). */
import { SignJWT } from "jose";

export const secret = new TextEncoder().encode("an-hs256-secret-of-at-least-32-bytes!");

export async function token(claims: Record<string, unknown>, opts: { expiresIn?: string; key?: Uint8Array } = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setExpirationTime(opts.expiresIn ?? "5m")
    .sign(opts.key ?? secret);
}

export const MODERN = "2026-07-28";

export interface RpcAnswer {
  readonly status: number;
  readonly body: {
    readonly result?: Record<string, unknown>;
    readonly error?: { readonly code: number; readonly message: string; readonly data?: Record<string, unknown> };
  };
}

let nextId = 1;

/** One 2026-07-28 request (per-request `_meta` envelope and headers) declaring `capabilities`. */
export async function modernRpc(url: URL, bearer: string, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = {}): Promise<RpcAnswer> {
  const name = typeof params["name"] === "string" ? { "mcp-name": params["name"] } : {};
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${bearer}`,
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": capabilities,
          "io.modelcontextprotocol/clientInfo": { name: "toolgate-wire-test", version: "1.0.0" },
        },
      },
    }),
  });
  return { status: res.status, body: (await res.json()) as RpcAnswer["body"] };
}

/** One 2025-11-25 stateless request (no initialize: the endpoint is stateless). */
export async function legacyRpc(url: URL, bearer: string, method: string, params: unknown): Promise<RpcAnswer> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${bearer}`, "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
  });
  const text = await res.text();
  const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "{}");
  return { status: res.status, body: JSON.parse(json) as RpcAnswer["body"] };
}
