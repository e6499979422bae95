/** What a hostile MCP client meets: typed errors, never an internal error or a tool it may not see. */
import { startCliProcess } from "../helpers/cli-process.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveTestGate } from "./fixture.js";
import type { ServedGate } from "./fixture.js";
import { legacyRpc, modernRpc, token } from "./wire.js";

describe("hostile MCP client over HTTP", () => {
  let served: ServedGate;
  let url: URL;
  beforeAll(async () => {
    served = await serveTestGate("sqlite");
    url = served.url;
  });
  afterAll(async () => {
    await served?.close();
  });

  it("wrong-typed tools/call params answer -32602 invalid params (2026-07-28 and 2025-11-25), never -32603", async () => {
    const alice = await token({ tenant: "t_acme", sub: "alice", roles: ["agent"] });
    for (const params of [{ name: 123, arguments: {} }, { name: "get_account", arguments: "acc_alice" }, { name: "get_account", arguments: [1] }]) {
      const modern = await modernRpc(url, alice, "tools/call", params);
      expect(modern.body.error?.code, JSON.stringify(modern.body)).toBe(-32602);
      const legacy = await legacyRpc(url, alice, "tools/call", params);
      expect(legacy.body.error?.code, JSON.stringify(legacy.body)).toBe(-32602);
    }
  });

  it("a body over the limit is refused with 413 before anything is parsed (declared or streamed without a length)", async () => {
    const alice = await token({ tenant: "t_acme", sub: "alice", roles: ["agent"] });
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_account", arguments: { account_id: "x".repeat(2 * 1024 * 1024) } } });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${alice}` };
    expect((await fetch(url, { method: "POST", headers, body: big })).status).toBe(413);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    expect((await fetch(url, { method: "POST", headers, body: chunked, duplex: "half" } as RequestInit)).status).toBe(413);
  });

  it("unknown_tool names only the tools the caller may see", async () => {
    const vera = await token({ tenant: "t_acme", sub: "vera", roles: ["viewer"] });
    const r = await modernRpc(url, vera, "tools/call", { name: "no_such_tool", arguments: {} });
    const env = r.body.result?.["structuredContent"] as { reason: string; message: string };
    expect(env.reason).toBe("unknown_tool");
    expect(env.message).toBe('no tool "no_such_tool"; tools you may call: get_account, get_reservation, list_transactions');
    expect(env.message).not.toContain("reserve_funds");
    expect(env.message).not.toContain("close_account");
  });
});

describe("hostile MCP client over stdio", () => {
  it("a line that is not JSON gets a JSON-RPC parse error reply, and the connection keeps serving", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-mcp-hostile-"));
    const child = startCliProcess(["mcp", "--stdio", "--demo", "--db", join(dir, "s.db"), "--tenant", "t_acme", "--user", "alice", "--roles", "agent"], {
      inheritEnv: false,
      stdio: ["pipe", "pipe", "ignore"],
    });
    try {
      const lines: unknown[] = [];
      let buf = "";
      const waitFor = (n: number) =>
        new Promise<void>((done) => {
          const check = () => (lines.length >= n ? done() : setTimeout(check, 20));
          check();
        });
      child.stdout!.on("data", (b: Buffer) => {
        buf += b.toString();
        let nl: number;
        while ((nl = buf.indexOf("\n")) !== -1) {
          lines.push(JSON.parse(buf.slice(0, nl)));
          buf = buf.slice(nl + 1);
        }
      });
      child.stdin!.write("this is not json\n");
      await waitFor(1);
      expect(lines[0]).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
      child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`);
      await waitFor(2);
      expect(lines[1]).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "toolgate" } } });
    } finally {
      child.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
