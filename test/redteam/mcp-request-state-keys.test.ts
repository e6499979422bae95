/**
 * A requestState is accepted only by a server holding its key: one sealed by a stdio process
 * (its own per-process key) or by an HTTP endpoint with another token secret is forged here, and
 * a requestState and a bearer token are never interchangeable. Each refusal runs nothing and
 * leaves the approval as it was. On both stores.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { approveAsBob, reserveArgs, serveTestGate } from "../mcp/fixture.js";
import type { ServedGate, TestGate } from "../mcp/fixture.js";
import { modernRpc, secret, token } from "../mcp/wire.js";
import type { RpcAnswer } from "../mcp/wire.js";
import { argumentsDigest, requestStateSeal } from "../../src/mcp/request-state.js";
import { requestStateKeyFrom } from "../../src/mcp/http.js";
import type { JsonValue } from "../../src/manifest.js";
import { describeEachStore } from "../helpers/stores.js";

const urlMode = { elicitation: { url: {} } };
const INBOX = "https://inbox.example/toolgate";

describeEachStore("MCP requestState keys", (stores) => {
  const kind = stores.name;
  let served: ServedGate;
  let gate: TestGate;
  let url: URL;
  let alice: string;

  beforeAll(async () => {
    served = await serveTestGate(kind, { approvalLink: INBOX });
    ({ gate, url } = served);
    alice = await token({ tenant: "t_acme", sub: "alice", roles: ["agent"] });
  });
  afterAll(async () => {
    await served?.close();
  });

  const call = (op: string) => ({ name: "reserve_funds", arguments: { ...reserveArgs, operation_id: op } });

  /** An approved approval for alice's call under `op`, and the state this endpoint sealed for it. */
  async function approvedRound(op: string): Promise<{ approvalId: string; state: string }> {
    const r = await modernRpc(url, alice, "tools/call", call(op), urlMode);
    const result = r.body.result as { resultType: string; requestState: string; inputRequests: Record<string, { params: { url: string } }> };
    expect(result.resultType).toBe("input_required");
    const approvalId = decodeURIComponent(/\/approvals\/([^/]+)$/.exec(result.inputRequests["approval_page"]?.params.url ?? "")?.[1] ?? "");
    await approveAsBob(gate.runtime, approvalId);
    return { approvalId, state: result.requestState };
  }

  function refusedAsForged(r: RpcAnswer): void {
    expect(r.body.result).toBeUndefined();
    expect(r.body.error?.code).toBe(-32602);
    expect(r.body.error?.data?.["reason"]).toBe("request_state_forged");
  }

  it("a state sealed under another key (a stdio process's, or another token secret's) is forged here and runs nothing", async () => {
    const op = `op-keys-${kind}`;
    const { approvalId } = await approvedRound(op);
    const payload = {
      tenant: "t_acme",
      user: "alice",
      tool: "reserve_funds",
      args_digest: argumentsDigest(call(op).arguments as JsonValue),
      operation_id: op,
      approval_id: approvalId,
      expires_at_ms: Date.now() + 60_000,
    };
    const stdioState = await requestStateSeal(randomBytes(32)).seal(payload);
    const otherSecretState = await requestStateSeal(requestStateKeyFrom(new TextEncoder().encode("another-deployment-secret-of-32-bytes!!"))).seal(payload);
    // The raw token secret is not the state key either (keys are derived per purpose).
    const rawSecretState = await requestStateSeal(secret).seal(payload);
    for (const state of [stdioState, otherSecretState, rawSecretState]) {
      refusedAsForged(await modernRpc(url, alice, "tools/call", { ...call(op), requestState: state }, urlMode));
    }
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
    expect((await gate.runtime.approvals.get(approvalId))?.consumed_by).toBeNull();
    // The same payload under this endpoint's key is accepted: only the key made the difference.
    const ownState = await requestStateSeal(requestStateKeyFrom(secret)).seal(payload);
    const ok = await modernRpc(url, alice, "tools/call", { ...call(op), requestState: ownState }, urlMode);
    expect(ok.body.result?.["structuredContent"]).toMatchObject({ outcome: "success", operation_id: op });
    expect(gate.ledger.effectsOf(op)).toHaveLength(1);
  });

  it("a bearer token is no requestState, and a requestState is no bearer token", async () => {
    const op = `op-swap-${kind}`;
    const { state, approvalId } = await approvedRound(op);
    refusedAsForged(await modernRpc(url, alice, "tools/call", { ...call(op), requestState: alice }, urlMode));
    const asBearer = await modernRpc(url, state, "tools/list", {});
    expect(asBearer.status).toBe(401);
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
    expect((await gate.runtime.approvals.get(approvalId))?.consumed_by).toBeNull();
    // The genuine state still works once: the refusals above spent nothing.
    const ok = await modernRpc(url, alice, "tools/call", { ...call(op), requestState: state }, urlMode);
    expect(ok.body.result?.["structuredContent"]).toMatchObject({ outcome: "success", operation_id: op });
    expect(gate.ledger.effectsOf(op)).toHaveLength(1);
  });
});
