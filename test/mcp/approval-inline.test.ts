/**
 * Inline approval through form-mode elicitation (MCP 2026-07-28), on both stores: where the
 * tools.yaml approval rules let the caller decide (self_approve), the client is asked approve
 * or reject; the decision is recorded with the caller as approver and the call runs once.
 */
import type { Server as HttpServer } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { serveMcpHttp } from "../../src/mcp/index.js";
import { loadOpaWasmEngineFromFiles } from "../../src/policy/index.js";
import { createRuntime } from "../../src/runtime/index.js";
import type { Runtime } from "../../src/runtime/index.js";
import type { Store } from "../../src/store/store.js";
import { handlers, notes } from "./conformance/fixture/handlers.js";
import { manifest, validators } from "./conformance/fixture/generated/index.js";
import { storeSite } from "./fixture.js";
import type { StoreSite } from "./fixture.js";
import { MODERN, secret, token } from "./wire.js";
import { describeEachStore } from "../helpers/stores.js";

const fixture = "test/mcp/conformance/fixture";
const TOOL = "self_approved_note";

describeEachStore("MCP inline approval through form elicitation", (stores) => {
  const kind = stores.name;
  let site: StoreSite;
  let store: Store;
  let runtime: Runtime;
  let http: HttpServer;
  let url: URL;
  let calls = 0;

  beforeAll(async () => {
    site = await storeSite(kind);
    store = await site.open();
    const policy = await loadOpaWasmEngineFromFiles({ wasm: `${fixture}/generated/policy.wasm`, data: `${fixture}/policies/data.json`, entrypoint: manifest.policy.entrypoint });
    runtime = createRuntime({ manifest, validators, handlers, policy, store, onError: () => undefined });
    http = await serveMcpHttp(runtime, { port: 0, secret });
    const inner = http.listeners("request")[0] as (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void;
    http.removeAllListeners("request");
    http.on("request", (req, res) => {
      if (req.headers["mcp-method"] === "tools/call") calls++;
      inner(req, res);
    });
    const address = http.address();
    url = new URL(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/mcp`);
  });
  afterAll(async () => {
    await new Promise((r) => http?.close(r));
    await store?.close();
    await site?.drop();
  });

  async function clientAnswering(user: string, answer: (message: string, schema: unknown) => Record<string, unknown>): Promise<Client> {
    const client = new Client({ name: "toolgate-inline", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN } } });
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as { message: string; requestedSchema?: unknown };
      return answer(params.message, params.requestedSchema) as never;
    });
    const bearer = await token({ tenant: "t_acme", sub: user, roles: ["agent"] });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
    return client;
  }

  it("the caller the rules let decide approves inline in 2 round trips: recorded with the caller as approver, the call runs once", async () => {
    const asked: string[] = [];
    const client = await clientAnswering("dana", (message, schema) => {
      asked.push(message);
      expect(schema).toMatchObject({ properties: { decision: { enum: ["approve", "reject"] } }, required: ["decision"] });
      return { action: "accept", content: { decision: "approve" } };
    });
    try {
      const before = calls;
      const result = (await client.callTool({ name: TOOL, arguments: { note: `inline-ok-${kind}`, operation_id: `op-inline-ok-${kind}` } })) as CallToolResult;
      expect(result.structuredContent, JSON.stringify(result.structuredContent)).toMatchObject({ outcome: "success", operation_id: `op-inline-ok-${kind}`, value: { text: `approved and ran: inline-ok-${kind}` } });
      expect(result.isError).not.toBe(true);
      expect(calls - before).toBe(2);
      expect(asked).toEqual([`Approve ${TOOL}? note: "inline-ok-${kind}"`]);
      expect(notes.filter((n) => n === `inline-ok-${kind}`)).toHaveLength(1);
      const page = await runtime.approvals.list({ tenant: "t_acme", tool: TOOL, status: "approved" });
      const mine = page.approvals.find((a) => a.args["note"] === `inline-ok-${kind}`);
      expect(mine?.decision).toMatchObject({ decision: "approve", approver: "dana" });
      expect(mine?.requested_by).toBe("dana");
    } finally {
      await client.close();
    }
  });

  it("a write sent without operation_id is approved inline under an operation id the server minted, and runs once", async () => {
    const client = await clientAnswering("hal", () => ({ action: "accept", content: { decision: "approve" } }));
    try {
      const before = calls;
      const result = (await client.callTool({ name: TOOL, arguments: { note: `inline-minted-${kind}` } })) as CallToolResult;
      const env = result.structuredContent as Record<string, unknown>;
      expect(env, JSON.stringify(env)).toMatchObject({ outcome: "success", value: { text: `approved and ran: inline-minted-${kind}` } });
      expect(env["operation_id"]).toMatch(/^mcp_[A-Za-z0-9_-]{22}$/);
      expect(calls - before).toBe(2);
      expect(notes.filter((n) => n === `inline-minted-${kind}`)).toHaveLength(1);
      const page = await runtime.approvals.list({ tenant: "t_acme", tool: TOOL, status: "approved", limit: 200 });
      expect(page.approvals.find((a) => a.args["note"] === `inline-minted-${kind}`)?.operation_id).toBe(env["operation_id"]);
    } finally {
      await client.close();
    }
  });

  it("a write the policy lets through without an approval never runs under a minted operation id: it answers operation_id required", async () => {
    const client = await clientAnswering("ivy", () => ({ action: "accept", content: { decision: "approve" } }));
    try {
      const result = (await client.callTool({ name: "unapproved_note", arguments: { note: `direct-${kind}` } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ outcome: "terminal_failure", reason: "invalid_arguments" });
      expect(String((result.structuredContent as Record<string, unknown>)["message"])).toContain("operation_id");
      expect(notes).not.toContain(`direct-${kind}`);
      // With its own id it runs, as before.
      const own = (await client.callTool({ name: "unapproved_note", arguments: { note: `direct-${kind}`, operation_id: `op-direct-${kind}` } })) as CallToolResult;
      expect(own.structuredContent).toMatchObject({ outcome: "success", operation_id: `op-direct-${kind}` });
      expect(notes.filter((n) => n === `direct-${kind}`)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("rejecting inline records the rejection with the caller as approver and answers the terminal envelope", async () => {
    const client = await clientAnswering("erin", () => ({ action: "accept", content: { decision: "reject" } }));
    try {
      const result = (await client.callTool({ name: TOOL, arguments: { note: `inline-no-${kind}`, operation_id: `op-inline-no-${kind}` } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
      expect(notes).not.toContain(`inline-no-${kind}`);
      const page = await runtime.approvals.list({ tenant: "t_acme", tool: TOOL, status: "rejected" });
      expect(page.approvals.find((a) => a.args["note"] === `inline-no-${kind}`)?.decision).toMatchObject({ decision: "reject", approver: "erin" });
    } finally {
      await client.close();
    }
  });

  it("an inline approval whose reason has 500 characters ending in an emoji (within the form's maxLength) is recorded in one round, the reason whole", async () => {
    const reason = `${"a".repeat(499)}\u{1F600}`;
    let asked = 0;
    const client = await clientAnswering("gus", () => {
      asked++;
      return { action: "accept", content: { decision: "approve", reason } };
    });
    try {
      const result = (await client.callTool({ name: TOOL, arguments: { note: `inline-emoji-${kind}`, operation_id: `op-inline-emoji-${kind}` } })) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ outcome: "success", operation_id: `op-inline-emoji-${kind}` });
      expect(asked).toBe(1);
      const page = await runtime.approvals.list({ tenant: "t_acme", tool: TOOL, status: "approved" });
      expect(page.approvals.find((a) => a.args["note"] === `inline-emoji-${kind}`)?.decision).toMatchObject({ decision: "approve", approver: "gus", reason });
    } finally {
      await client.close();
    }
  });

  it("declining the form ends the round: today's approval_required envelope, the approval stays pending", async () => {
    let asked = 0;
    const client = await clientAnswering("fay", () => {
      asked++;
      return { action: "decline" };
    });
    try {
      const result = (await client.callTool({ name: TOOL, arguments: { note: `inline-decline-${kind}`, operation_id: `op-inline-decline-${kind}` } })) as CallToolResult;
      expect(asked).toBe(1);
      expect(result.structuredContent).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
      const page = await runtime.approvals.list({ tenant: "t_acme", tool: TOOL, status: "pending" });
      expect(page.approvals.some((a) => a.args["note"] === `inline-decline-${kind}`)).toBe(true);
    } finally {
      await client.close();
    }
  });
});
