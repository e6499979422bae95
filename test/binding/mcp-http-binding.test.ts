/**
 * The MCP server over Streamable HTTP inherits the runtime's bindings (it calls the runtime with
 * the token's principal): another user of the tenant presenting alice's arguments, operation id
 * and approval id gets an error result and no effect, and no stored outcome of alice's. Both stores.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { SignJWT } from "jose";
import { afterAll, beforeAll, expect, it } from "vitest";
import { approveAsBob, reserveArgs, serveTestGate } from "../mcp/fixture.js";
import type { ServedGate, TestGate } from "../mcp/fixture.js";
import { describeEachStore } from "../helpers/stores.js";

const secret = new TextEncoder().encode("an-hs256-secret-of-at-least-32-bytes!");

const token = (claims: Record<string, unknown>): Promise<string> =>
  new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setExpirationTime("5m").sign(secret);

async function connect(url: URL, bearer: string): Promise<Client> {
  const client = new Client({ name: "toolgate-binding-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  return client;
}

async function call(client: Client, args: Record<string, unknown>): Promise<{ isError: boolean; env: Record<string, unknown> }> {
  const result = (await client.callTool({ name: "reserve_funds", arguments: args })) as CallToolResult;
  return { isError: result.isError === true, env: result.structuredContent as Record<string, unknown> };
}

describeEachStore("principal binding over MCP HTTP", (stores) => {
  const kind = stores.name;
  let served: ServedGate;
  let gate: TestGate;
  let url: URL;
  const clients: Client[] = [];

  beforeAll(async () => {
    served = await serveTestGate(kind);
    ({ gate, url } = served);
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await served?.close();
  });

  it("an approval is consumed only by the principal that requested it, and a stored outcome is replayed only to that user, over MCP HTTP", async () => {
    const alice = await connect(url, await token({ tenant: "t_acme", sub: "alice", roles: ["agent"], run_id: "run_a" }));
    const carol = await connect(url, await token({ tenant: "t_acme", sub: "carol", roles: ["agent"], run_id: "run_c" }));
    const vera = await connect(url, await token({ tenant: "t_acme", sub: "vera", roles: ["viewer"] }));
    clients.push(alice, carol, vera);
    const operation_id = `op-mcp-bound-${kind}`;
    const asked = await call(alice, { ...reserveArgs, operation_id });
    expect(asked.env).toMatchObject({ reason: "approval_required" });
    const approval_id = asked.env["approval_id"] as string;
    await approveAsBob(gate.runtime, approval_id);

    const stolen = await call(carol, { ...reserveArgs, operation_id, approval_id });
    expect(stolen).toMatchObject({ isError: true, env: { outcome: "terminal_failure", reason: "policy_denied" } });
    expect(gate.ledger.effectsOf(operation_id)).toHaveLength(0);

    const own = await call(alice, { ...reserveArgs, operation_id, approval_id });
    expect(own).toMatchObject({ isError: false, env: { outcome: "success", replayed: false } });
    for (const other of [carol, vera]) {
      const replay = await call(other, { ...reserveArgs, operation_id, approval_id });
      expect(replay.isError).toBe(true);
      expect(replay.env).toMatchObject({ outcome: "terminal_failure" });
      expect(replay.env["resource_id"]).toBeUndefined();
    }
    expect(gate.ledger.effectsOf(operation_id)).toHaveLength(1);
  });
});
