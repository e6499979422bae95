import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SignJWT } from "jose";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  approvalThenRetryCommitsOnce,
  deniedCallsAreErrors,
  listsToolsForThePrincipal,
  readCallSucceeds,
  writeNeedsOperationId,
} from "./conversation.js";
import type { Conversation } from "./conversation.js";
import { approveAsBob, serveTestGate } from "./fixture.js";
import type { ServedGate, TestGate } from "./fixture.js";
import { describeEachStore } from "../helpers/stores.js";

const secret = new TextEncoder().encode("an-hs256-secret-of-at-least-32-bytes!");
const INBOX = "https://inbox.example/toolgate";

async function token(claims: Record<string, unknown>, opts: { expiresIn?: string; key?: Uint8Array } = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setExpirationTime(opts.expiresIn ?? "5m")
    .sign(opts.key ?? secret);
}

/** The protocol eras one endpoint serves: 2025-11-25 (the client's default handshake) and 2026-07-28. */
const eras = ["2025-11-25", "2026-07-28"] as const;
type Era = (typeof eras)[number];

async function connect(url: URL, bearer: string, era: Era = "2025-11-25"): Promise<Client> {
  const client = new Client({ name: "toolgate-test", version: "1.0.0" }, era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {});
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  return client;
}

for (const era of eras) {
  describeEachStore(`MCP over Streamable HTTP, SDK client, spec ${era}`, (stores) => {
    const kind = stores.name;
    let served: ServedGate;
    let gate: TestGate;
    let url: URL;
    let c: Conversation;

    beforeAll(async () => {
      served = await serveTestGate(kind, { approvalLink: INBOX });
      ({ gate, url } = served);
      c = {
        client: await connect(url, await token({ tenant: "t_acme", sub: "alice", roles: ["agent"] }), era),
        viewerClient: await connect(url, await token({ tenant: "t_acme", sub: "vera", roles: ["viewer"] }), era),
        approve: (id) => approveAsBob(gate.runtime, id),
        effectsOf: (op) => gate.ledger.effectsOf(op).length,
        approvalLinkBase: INBOX,
      };
    });
    afterAll(async () => {
      await c?.client.close();
      await c?.viewerClient.close();
      await served?.close();
    });

    it("lists the tools the policy permits the token's principal, in name order, with true annotations and the manifest's schemas", () =>
      listsToolsForThePrincipal(c));
    it("answers a read with the success envelope as structured content and text", () => readCallSucceeds(c));
    it("never mints an operation id: a write without one is invalid_arguments", () => writeNeedsOperationId(c));
    it("approval_required carries the approval id and inbox link; after approval the retry commits once; replay; conflict", () =>
      approvalThenRetryCommitsOnce(c, `op-http-${kind}-${era}`));
    it("denials are isError results with the envelope", () => deniedCallsAreErrors(c));

    it("rejects requests without a valid bearer token with 401 and touches no tool", async () => {
      const post = (headers: Record<string, string>) =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        });
      const none = await post({});
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toContain("Bearer");
      const forged = await post({ authorization: `Bearer ${await token({ tenant: "t_acme", sub: "alice", roles: ["agent"] }, { key: new TextEncoder().encode("x".repeat(40)) })}` });
      expect(forged.status).toBe(401);
      const expired = await post({ authorization: `Bearer ${await token({ tenant: "t_acme", sub: "alice", roles: ["agent"] }, { expiresIn: "-1m" })}` });
      expect(expired.status).toBe(401);
      const noTenant = await post({ authorization: `Bearer ${await token({ sub: "alice", roles: ["agent"] })}` });
      expect(noTenant.status).toBe(401);
      expect((await noTenant.json()) as unknown).toMatchObject({ error: { message: expect.stringContaining("tenant") } });
      // A token the approvals inbox issues (its audience) does not open an agent session.
      const inboxToken = await new SignJWT({ tenant: "t_acme", roles: ["approver"] }).setProtectedHeader({ alg: "HS256" }).setSubject("bob").setAudience("toolgate-approvals").setExpirationTime("5m").sign(secret);
      expect((await post({ authorization: `Bearer ${inboxToken}` })).status).toBe(401);
      const mcpAudience = await new SignJWT({ tenant: "t_acme", sub: "alice", roles: ["agent"] }).setProtectedHeader({ alg: "HS256" }).setAudience("toolgate-mcp").setExpirationTime("5m").sign(secret);
      expect((await post({ authorization: `Bearer ${mcpAudience}` })).status).toBe(200);
      const noneAlg = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${Buffer.from(JSON.stringify({ tenant: "t_acme", sub: "alice", roles: ["agent"], exp: 9_999_999_999 })).toString("base64url")}.`;
      expect((await post({ authorization: `Bearer ${noneAlg}` })).status).toBe(401);
    });

    it("refuses a foreign Host or Origin (DNS rebinding) with 403, even with a valid token", async () => {
      const { request } = await import("node:http");
      const status = (headers: Record<string, string>) =>
        new Promise<number>(async (done, fail) => {
          const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
          const auth = `Bearer ${await token({ tenant: "t_acme", sub: "alice", roles: ["agent"] })}`;
          const r = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: auth, ...headers } }, (res) => {
            res.resume();
            done(res.statusCode ?? 0);
          });
          r.on("error", fail);
          r.end(body);
        });
      expect(await status({ host: "evil.example.com" })).toBe(403);
      expect(await status({ origin: "http://evil.example.com" })).toBe(403);
      expect(await status({})).toBe(200);
    });

    it("a token of another tenant cannot use this tenant's approval", async () => {
      const first = await c.client.callTool({ name: "reserve_funds", arguments: { account_id: "acc_alice", amount: 7, currency: "EUR", recipient: "acc_bob", operation_id: `op-x-${kind}-${era}` } });
      const approvalId = (first.structuredContent as { approval_id: string }).approval_id;
      await approveAsBob(gate.runtime, approvalId);
      const other = await connect(url, await token({ tenant: "t_evil", sub: "mallory", roles: ["agent"] }), era);
      try {
        const stolen = await other.callTool({
          name: "reserve_funds",
          arguments: { account_id: "acc_alice", amount: 7, currency: "EUR", recipient: "acc_bob", operation_id: `op-x-${kind}-${era}`, approval_id: approvalId },
        });
        expect(stolen.isError).toBe(true);
        expect(stolen.structuredContent).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
        expect(gate.ledger.effectsOf(`op-x-${kind}-${era}`)).toHaveLength(0);
      } finally {
        await other.close();
      }
    });
  });
}
