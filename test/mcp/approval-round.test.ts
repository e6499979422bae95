/**
 * Approvals through the protocol (MCP 2026-07-28 input_required), on both stores: the v2 client
 * SDK answers the elicitation, the approval is decided through the inbox's HTTP API, and the
 * retry with the sealed requestState runs the call exactly once. Every refused state is a typed
 * -32602 error with no effect.
 */
import type { Server as HttpServer } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpHttpHandler } from "../../src/mcp/index.js";
import { createInboxApp, createTokenVerifier, issueApproverToken, listenInbox } from "../../src/server/index.js";
import type { RunningInbox } from "../../src/server/index.js";
import type { Store } from "../../src/store/store.js";
import { makeTestGate, reserveArgs, storeSite } from "./fixture.js";
import type { StoreSite, TestGate } from "./fixture.js";
import { MODERN, modernRpc, secret, token } from "./wire.js";
import type { RpcAnswer } from "./wire.js";
import { describeEachStore } from "../helpers/stores.js";

const INBOX_SECRET = "an-inbox-approver-secret-of-32-bytes-or-more";
const CSRF = "a-csrf-secret-of-at-least-32-bytes-long!!";
const urlMode = { elicitation: { url: {} } };

type Structured = Record<string, unknown>;

describeEachStore("MCP approvals through input_required", (stores) => {
  const kind = stores.name;
  let site: StoreSite;
  let store: Store;
  let gate: TestGate;
  let http: HttpServer;
  let inbox: RunningInbox;
  let url: URL;
  let alice: string;
  let skewMs = 0;
  /** tools/call requests the endpoint received (round trips). */
  let calls = 0;

  beforeAll(async () => {
    site = await storeSite(kind);
    store = await site.open();
    gate = await makeTestGate(store);
    inbox = await listenInbox(
      createInboxApp({ approvals: gate.runtime.approvals, verifyApprover: createTokenVerifier({ secret: INBOX_SECRET }), csrfSecret: CSRF, resumeOnDecision: false }),
    );
    const handler = createMcpHttpHandler(gate.runtime, { secret, approvalLink: inbox.url, now: () => Date.now() + skewMs });
    const { createServer } = await import("node:http");
    http = createServer((req, res) => {
      if (req.headers["mcp-method"] === "tools/call") calls++;
      void handler(req, res);
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const address = http.address();
    url = new URL(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/mcp`);
    alice = await token({ tenant: "t_acme", sub: "alice", roles: ["agent"] });
  });
  afterAll(async () => {
    await new Promise((r) => http?.close(r));
    await inbox?.close();
    await store?.close();
    await site?.drop();
  });

  /** Decides as bob through the inbox's JSON API, as a human would after opening the link. */
  async function decide(approvalId: string, decision: "approve" | "reject" | "revoke"): Promise<number> {
    const bob = await issueApproverToken({ secret: INBOX_SECRET, tenant: "t_acme", user: "bob", roles: ["approver"] });
    const res = await fetch(`${inbox.url}/api/approvals/${encodeURIComponent(approvalId)}/decision`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${bob}` },
      body: JSON.stringify({ decision }),
    });
    return res.status;
  }

  const reserve = (op: string, extra: Record<string, unknown> = {}) => ({ name: "reserve_funds", arguments: { ...reserveArgs, operation_id: op, ...extra } });

  /** First round: input_required with a URL elicitation to the inbox page; returns the state and approval id. */
  async function firstRound(op: string, bearer = alice): Promise<{ state: string; approvalId: string }> {
    const r = await modernRpc(url, bearer, "tools/call", reserve(op), urlMode);
    const result = r.body.result as { resultType: string; requestState: string; inputRequests: Record<string, { method: string; params: { mode: string; url: string } }> };
    expect(result.resultType).toBe("input_required");
    const page = result.inputRequests["approval_page"];
    expect(page?.method).toBe("elicitation/create");
    expect(page?.params.mode).toBe("url");
    const approvalId = decodeURIComponent(/\/approvals\/([^/]+)$/.exec(page?.params.url ?? "")?.[1] ?? "");
    expect(page?.params.url).toBe(`${inbox.url}/approvals/${encodeURIComponent(approvalId)}`);
    return { state: result.requestState, approvalId };
  }

  function refused(r: RpcAnswer, reason: string): void {
    expect(r.body.result).toBeUndefined();
    expect(r.body.error?.code).toBe(-32602);
    expect(r.body.error?.data?.["reason"]).toBe(reason);
  }

  for (const own of [true, false]) {
    it(`a client with URL elicitation gets input_required to the inbox page; approved through the inbox's HTTP API, the SDK client's retry runs the call exactly once in 2 round trips (${own ? "the client's operation_id" : "operation_id minted by the server"})`, async () => {
      const sent = `op-e2e-${kind}`;
      const client = new Client({ name: "toolgate-e2e", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: MODERN } } });
      const seen: string[] = [];
      client.setRequestHandler("elicitation/create", async (request) => {
        const params = request.params as { mode?: string; url?: string };
        seen.push(`${params.mode}:${params.url}`);
        // The human opens the page and approves; the client then reports the URL flow as done.
        const id = decodeURIComponent(/\/approvals\/([^/]+)$/.exec(params.url ?? "")?.[1] ?? "");
        expect(await decide(id, "approve")).toBe(200);
        return { action: "accept" };
      });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${alice}` } } }));
      try {
        const before = calls;
        const result = (await client.callTool(own ? reserve(sent) : reserveWithoutId())) as CallToolResult;
        expect(result.isError).not.toBe(true);
        const op = String((result.structuredContent as Structured)["operation_id"]);
        expect(op).toMatch(own ? new RegExp(`^${sent}$`) : /^mcp_/);
        expect(result.structuredContent).toMatchObject({ outcome: "success", replayed: false, value: { state: "reserved" } });
        expect(seen).toHaveLength(1);
        expect(seen[0]).toMatch(new RegExp(`^url:${inbox.url}/approvals/apr_`));
        expect(calls - before).toBe(2);
        expect(gate.ledger.effectsOf(op)).toHaveLength(1);
      } finally {
        await client.close();
      }
    });
  }

  it("a pending approval answers input_required again; after approval the state runs the call", async () => {
    const op = `op-pending-${kind}`;
    const { state, approvalId } = await firstRound(op);
    const again = await modernRpc(url, alice, "tools/call", { ...reserve(op), requestState: state }, urlMode);
    const second = again.body.result as { resultType: string; requestState: string };
    expect(second.resultType).toBe("input_required");
    expect(typeof second.requestState).toBe("string");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
    expect(await decide(approvalId, "approve")).toBe(200);
    const done = await modernRpc(url, alice, "tools/call", { ...reserve(op), requestState: second.requestState }, urlMode);
    expect(done.body.result?.["structuredContent"]).toMatchObject({ outcome: "success", operation_id: op });
    expect(gate.ledger.effectsOf(op)).toHaveLength(1);
  });

  it("a rejected approval answers the terminal envelope and runs nothing", async () => {
    const op = `op-rejected-${kind}`;
    const { state, approvalId } = await firstRound(op);
    expect(await decide(approvalId, "reject")).toBe(200);
    const r = await modernRpc(url, alice, "tools/call", { ...reserve(op), requestState: state }, urlMode);
    expect(r.body.result?.["isError"]).toBe(true);
    const env = r.body.result?.["structuredContent"] as Structured;
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
    expect(String(env["message"])).toContain("reject");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("a client that declares no elicitation gets today's approval_required envelope with the inbox link", async () => {
    const r = await modernRpc(url, alice, "tools/call", reserve(`op-noelicit-${kind}`), {});
    const env = r.body.result?.["structuredContent"] as Structured;
    expect(r.body.result?.["resultType"]).not.toBe("input_required");
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
    expect(env["approval_url"]).toBe(`${inbox.url}/approvals/${String(env["approval_id"])}`);
  });

  it("inline approval is not offered where the tools.yaml rules forbid the caller to decide (no self-approval): URL mode only", async () => {
    const r = await modernRpc(url, alice, "tools/call", reserve(`op-noinline-${kind}`), { elicitation: { url: {}, form: {} } });
    expect(Object.keys((r.body.result as { inputRequests: Structured }).inputRequests)).toEqual(["approval_page"]);
    const formOnly = await modernRpc(url, alice, "tools/call", reserve(`op-formonly-${kind}`), { elicitation: { form: {} } });
    expect(formOnly.body.result?.["structuredContent"]).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
  });

  it("an inline decision the caller was not offered approves nothing: the rules (no self-approval) still decide", async () => {
    const op = `op-selfapprove-${kind}`;
    const { state, approvalId } = await firstRound(op);
    const forgedDecision = { approval_decision: { action: "accept", content: { decision: "approve" } } };
    const r = await modernRpc(url, alice, "tools/call", { ...reserve(op), requestState: state, inputResponses: forgedDecision }, { elicitation: { url: {}, form: {} } });
    expect(r.body.result?.["resultType"]).toBe("input_required");
    expect((await gate.runtime.approvals.get(approvalId))?.status).toBe("pending");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  const reserveWithoutId = (extra: Record<string, unknown> = {}) => ({ name: "reserve_funds", arguments: { ...reserveArgs, ...extra } });
  /** A first round of a call sent without operation_id: the state, the approval and the operation id the server minted. */
  async function mintedRound(bearer = alice, args: Record<string, unknown> = {}): Promise<{ state: string; approvalId: string; operationId: string }> {
    const r = await modernRpc(url, bearer, "tools/call", reserveWithoutId(args), urlMode);
    const result = r.body.result as { resultType: string; requestState: string; inputRequests: Record<string, { params: { url: string } }> };
    expect(result.resultType, JSON.stringify(r.body)).toBe("input_required");
    const approvalId = decodeURIComponent(/\/approvals\/([^/]+)$/.exec(result.inputRequests["approval_page"]?.params.url ?? "")?.[1] ?? "");
    const operationId = (await gate.runtime.approvals.get(approvalId))?.operation_id ?? "";
    return { state: result.requestState, approvalId, operationId };
  }

  it("a write sent without operation_id gets a random operation id minted by the server, sealed in the state: the approved retry runs exactly that operation once", async () => {
    const { state, approvalId, operationId } = await mintedRound();
    // 128 random bits, base64url: unguessable, and told apart from a model's own ids by its prefix.
    expect(operationId).toMatch(/^mcp_[A-Za-z0-9_-]{22}$/);
    expect(await decide(approvalId, "approve")).toBe(200);
    const done = await modernRpc(url, alice, "tools/call", { ...reserveWithoutId(), requestState: state }, urlMode);
    expect(done.body.result?.["structuredContent"]).toMatchObject({ outcome: "success", operation_id: operationId, replayed: false });
    expect(gate.ledger.effectsOf(operationId)).toHaveLength(1);
    // Another call without an id is another operation with its own approval: never the first one's id.
    const next = await mintedRound();
    expect(next.operationId).toMatch(/^mcp_/);
    expect(next.operationId).not.toBe(operationId);
    expect(next.approvalId).not.toBe(approvalId);
    expect(gate.ledger.effectsOf(next.operationId)).toHaveLength(0);
  });

  it("a retry without the state never runs the approved minted operation a second time, nor under another id", async () => {
    const { state, approvalId, operationId } = await mintedRound();
    expect(await decide(approvalId, "approve")).toBe(200);
    // Without the state: a new call (a new pending approval), nothing runs.
    const fresh = await modernRpc(url, alice, "tools/call", reserveWithoutId(), urlMode);
    expect(fresh.body.result?.["resultType"]).toBe("input_required");
    // The approval id without an operation id is never given a fresh one: today's answer, nothing runs.
    const noId = await modernRpc(url, alice, "tools/call", reserveWithoutId({ approval_id: approvalId }), urlMode);
    expect(noId.body.result?.["structuredContent"]).toMatchObject({ outcome: "terminal_failure", reason: "invalid_arguments" });
    expect(gate.ledger.effectsOf(operationId)).toHaveLength(0);
    // The state (or the minted id with the approval) runs it, once.
    const done = await modernRpc(url, alice, "tools/call", { ...reserveWithoutId(), requestState: state }, urlMode);
    expect(done.body.result?.["structuredContent"]).toMatchObject({ outcome: "success", operation_id: operationId });
    const byId = await modernRpc(url, alice, "tools/call", reserve(operationId, { approval_id: approvalId }), urlMode);
    expect(byId.body.result?.["structuredContent"]).toMatchObject({ outcome: "success", operation_id: operationId, replayed: true });
    const again = await modernRpc(url, alice, "tools/call", reserveWithoutId(), urlMode);
    expect(again.body.result?.["resultType"]).toBe("input_required");
    expect(gate.ledger.effectsOf(operationId)).toHaveLength(1);
  });

  it("a minted operation is its principal's only: another user's state, id or approval never runs it or reads its outcome", async () => {
    const { state, approvalId, operationId } = await mintedRound();
    expect(await decide(approvalId, "approve")).toBe(200);
    const carol = await token({ tenant: "t_acme", sub: "carol", roles: ["agent"] });
    refused(await modernRpc(url, carol, "tools/call", { ...reserveWithoutId(), requestState: state }, urlMode), "request_state_other_principal");
    const stolen = await modernRpc(url, carol, "tools/call", reserve(operationId, { approval_id: approvalId }), urlMode);
    expect(stolen.body.result?.["structuredContent"]).not.toMatchObject({ outcome: "success" });
    expect(gate.ledger.effectsOf(operationId)).toHaveLength(0);
    const done = await modernRpc(url, alice, "tools/call", { ...reserveWithoutId(), requestState: state }, urlMode);
    const resource = (done.body.result?.["structuredContent"] as Structured)["resource_id"];
    expect(done.body.result?.["structuredContent"]).toMatchObject({ outcome: "success", operation_id: operationId });
    // After the commit, the id alone does not replay alice's outcome to carol.
    const peek = await modernRpc(url, carol, "tools/call", reserve(operationId), urlMode);
    expect(peek.body.result?.["structuredContent"]).not.toMatchObject({ outcome: "success" });
    expect(JSON.stringify(peek.body)).not.toContain(String(resource));
    expect(gate.ledger.effectsOf(operationId)).toHaveLength(1);
  });

  it("a state minted for a call without operation_id is refused when the retry adds an operation id of its own (request_state_other_call)", async () => {
    const { state, approvalId, operationId } = await mintedRound();
    expect(await decide(approvalId, "approve")).toBe(200);
    refused(await modernRpc(url, alice, "tools/call", { ...reserve(`op-smuggled-${kind}`), requestState: state }, urlMode), "request_state_other_call");
    refused(await modernRpc(url, alice, "tools/call", { ...reserve(operationId), requestState: state }, urlMode), "request_state_other_call");
    expect(gate.ledger.effectsOf(`op-smuggled-${kind}`)).toHaveLength(0);
    expect(gate.ledger.effectsOf(operationId)).toHaveLength(0);
  });

  it("where no elicitation mode can be offered (form only, no self-approval) the approval_required envelope carries the minted operation_id: the retry with it and the approval runs once", async () => {
    const r = await modernRpc(url, alice, "tools/call", reserveWithoutId(), { elicitation: { form: {} } });
    const env = r.body.result?.["structuredContent"] as Structured;
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
    const operationId = String(env["operation_id"]);
    expect(operationId).toMatch(/^mcp_[A-Za-z0-9_-]{22}$/);
    expect(await decide(String(env["approval_id"]), "approve")).toBe(200);
    const done = await modernRpc(url, alice, "tools/call", reserve(operationId, { approval_id: env["approval_id"] }), {});
    expect(done.body.result?.["structuredContent"]).toMatchObject({ outcome: "success", operation_id: operationId, replayed: false });
    expect(gate.ledger.effectsOf(operationId)).toHaveLength(1);
  });

  it("without elicitation a write without operation_id still answers invalid_arguments: no id is minted where no state can carry it", async () => {
    const before = (await gate.runtime.approvals.list({ tenant: "t_acme", tool: "reserve_funds", status: "pending", limit: 200 })).approvals.length;
    const r = await modernRpc(url, alice, "tools/call", reserveWithoutId(), {});
    expect(r.body.result?.["structuredContent"]).toMatchObject({ outcome: "terminal_failure", reason: "invalid_arguments" });
    expect(String((r.body.result?.["structuredContent"] as Structured)["message"])).toContain("operation_id");
    expect((await gate.runtime.approvals.list({ tenant: "t_acme", tool: "reserve_funds", status: "pending", limit: 200 })).approvals.length).toBe(before);
  });

  it("a forged requestState is refused (request_state_forged) and runs nothing", async () => {
    const op = `op-forged-${kind}`;
    const { state, approvalId } = await firstRound(op);
    expect(await decide(approvalId, "approve")).toBe(200);
    const [v, body, mac] = state.split(".");
    const payload = JSON.parse(Buffer.from(body ?? "", "base64url").toString()) as { p: Structured };
    payload.p["user"] = "alice";
    payload.p["expires_at_ms"] = Date.now() + 3_600_000_000;
    const tampered = `${v}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${mac}`;
    refused(await modernRpc(url, alice, "tools/call", { ...reserve(op), requestState: tampered }, urlMode), "request_state_forged");
    refused(await modernRpc(url, alice, "tools/call", { ...reserve(op), requestState: "not-a-state" }, urlMode), "request_state_forged");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("a replayed requestState answers the operation's recorded envelope (replayed, same resource): the approved call ran once", async () => {
    const op = `op-replayed-${kind}`;
    const { state, approvalId } = await firstRound(op);
    expect(await decide(approvalId, "approve")).toBe(200);
    const first = await modernRpc(url, alice, "tools/call", { ...reserve(op), requestState: state }, urlMode);
    const committed = first.body.result?.["structuredContent"] as Structured;
    expect(committed).toMatchObject({ outcome: "success", replayed: false });
    const again = await modernRpc(url, alice, "tools/call", { ...reserve(op), requestState: state }, urlMode);
    expect(again.body.result?.["structuredContent"]).toMatchObject({ outcome: "success", operation_id: op, replayed: true, resource_id: committed["resource_id"] });
    expect(gate.ledger.effectsOf(op)).toHaveLength(1);
  });

  describe("with a host that resumes approved calls itself (inbox resumeOnDecision)", () => {
    let resuming: RunningInbox;
    beforeAll(async () => {
      resuming = await listenInbox(
        createInboxApp({ approvals: gate.runtime.approvals, verifyApprover: createTokenVerifier({ secret: INBOX_SECRET }), csrfSecret: CSRF, resumeOnDecision: true }),
      );
    });
    afterAll(async () => {
      await resuming?.close();
    });

    async function approveAndResume(approvalId: string): Promise<void> {
      const bob = await issueApproverToken({ secret: INBOX_SECRET, tenant: "t_acme", user: "bob", roles: ["approver"] });
      const res = await fetch(`${resuming.url}/api/approvals/${encodeURIComponent(approvalId)}/decision`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bob}` },
        body: JSON.stringify({ decision: "approve" }),
      });
      expect(res.status).toBe(200);
    }

    it("the client's retry after the host resumed the call answers the recorded envelope (idempotent replay), not request_state_used", async () => {
      const op = `op-resumed-${kind}`;
      const { state, approvalId } = await firstRound(op);
      await approveAndResume(approvalId);
      expect(gate.ledger.effectsOf(op)).toHaveLength(1);
      expect((await gate.runtime.approvals.get(approvalId))?.consumed_by).toBe(op);
      const retry = await modernRpc(url, alice, "tools/call", { ...reserve(op), requestState: state }, urlMode);
      expect(retry.body.error, JSON.stringify(retry.body)).toBeUndefined();
      expect(retry.body.result?.["structuredContent"]).toMatchObject({ outcome: "success", operation_id: op, replayed: true, value: { state: "reserved" } });
      expect(gate.ledger.effectsOf(op)).toHaveLength(1);
    });

    it("a minted operation the host resumed answers the client's retry with its recorded envelope", async () => {
      const { state, approvalId, operationId } = await mintedRound();
      await approveAndResume(approvalId);
      expect(gate.ledger.effectsOf(operationId)).toHaveLength(1);
      const retry = await modernRpc(url, alice, "tools/call", { ...reserveWithoutId(), requestState: state }, urlMode);
      expect(retry.body.result?.["structuredContent"]).toMatchObject({ outcome: "success", operation_id: operationId, replayed: true });
      expect(gate.ledger.effectsOf(operationId)).toHaveLength(1);
    });

    it("a resumed call's state stays refused for another principal and for other arguments, and reveals nothing", async () => {
      const op = `op-resumed-other-${kind}`;
      const { state, approvalId } = await firstRound(op);
      await approveAndResume(approvalId);
      const carol = await token({ tenant: "t_acme", sub: "carol", roles: ["agent"] });
      const byCarol = await modernRpc(url, carol, "tools/call", { ...reserve(op), requestState: state }, urlMode);
      refused(byCarol, "request_state_other_principal");
      expect(JSON.stringify(byCarol.body)).not.toContain("reserved");
      refused(await modernRpc(url, alice, "tools/call", { ...reserve(op, { amount: 999_999 }), requestState: state }, urlMode), "request_state_other_call");
      expect(gate.ledger.effectsOf(op)).toHaveLength(1);
    });
  });

  it("an expired requestState is refused (request_state_expired) and runs nothing", async () => {
    const op = `op-expired-${kind}`;
    const { state, approvalId } = await firstRound(op);
    expect(await decide(approvalId, "approve")).toBe(200);
    skewMs = 16 * 60_000; // reserve_funds approvals live 15 minutes
    try {
      refused(await modernRpc(url, alice, "tools/call", { ...reserve(op), requestState: state }, urlMode), "request_state_expired");
    } finally {
      skewMs = 0;
    }
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("another principal's requestState is refused (request_state_other_principal), even for an approved call", async () => {
    const op = `op-other-principal-${kind}`;
    const { state, approvalId } = await firstRound(op);
    expect(await decide(approvalId, "approve")).toBe(200);
    const carol = await token({ tenant: "t_acme", sub: "carol", roles: ["agent"] });
    refused(await modernRpc(url, carol, "tools/call", { ...reserve(op), requestState: state }, urlMode), "request_state_other_principal");
    const mallory = await token({ tenant: "t_evil", sub: "alice", roles: ["agent"] });
    refused(await modernRpc(url, mallory, "tools/call", { ...reserve(op), requestState: state }, urlMode), "request_state_other_principal");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("a requestState sent with other arguments is refused (request_state_other_call) and runs nothing", async () => {
    const op = `op-other-args-${kind}`;
    const { state, approvalId } = await firstRound(op);
    expect(await decide(approvalId, "approve")).toBe(200);
    refused(await modernRpc(url, alice, "tools/call", { ...reserve(op, { amount: 999_999 }), requestState: state }, urlMode), "request_state_other_call");
    refused(await modernRpc(url, alice, "tools/call", { ...reserve(`${op}-b`), requestState: state }, urlMode), "request_state_other_call");
    refused(await modernRpc(url, alice, "tools/call", { name: "confirm_transfer", arguments: { reservation_id: "res_1", amount: 1, currency: "EUR", operation_id: op }, requestState: state }, urlMode), "request_state_other_call");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("a requestState whose approval was revoked is refused (request_state_revoked) and runs nothing", async () => {
    const op = `op-revoked-${kind}`;
    const { state, approvalId } = await firstRound(op);
    expect(await decide(approvalId, "approve")).toBe(200);
    expect(await decide(approvalId, "revoke")).toBe(200);
    refused(await modernRpc(url, alice, "tools/call", { ...reserve(op), requestState: state }, urlMode), "request_state_revoked");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });
});
