/**
 * Inline (form-mode) approval over MCP never lets the requester approve their own call, even when
 * the requester's token carries the approver role: the form is not offered, and an inline
 * decision sent anyway decides nothing and runs nothing. On both stores.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { reserveArgs, serveTestGate } from "../mcp/fixture.js";
import type { ServedGate, TestGate } from "../mcp/fixture.js";
import { modernRpc, token } from "../mcp/wire.js";
import { describeEachStore } from "../helpers/stores.js";

const both = { elicitation: { url: {}, form: {} } };
const INBOX = "https://inbox.example/toolgate";

describeEachStore("MCP inline self-approval", (stores) => {
  const kind = stores.name;
  let served: ServedGate;
  let gate: TestGate;
  let url: URL;

  beforeAll(async () => {
    served = await serveTestGate(kind, { approvalLink: INBOX });
    ({ gate, url } = served);
  });
  afterAll(async () => {
    await served?.close();
  });

  it("a requester holding the approver role is not offered the inline form and cannot approve her own call with a forged inline decision", async () => {
    const op = `op-self-approver-${kind}`;
    const aliceApprover = await token({ tenant: "t_acme", sub: "alice", roles: ["agent", "approver"] });
    const call = { name: "reserve_funds", arguments: { ...reserveArgs, operation_id: op } };
    const first = await modernRpc(url, aliceApprover, "tools/call", call, both);
    const result = first.body.result as { resultType: string; requestState: string; inputRequests: Record<string, { params: { url: string } }> };
    expect(result.resultType).toBe("input_required");
    expect(Object.keys(result.inputRequests)).toEqual(["approval_page"]);
    const approvalId = decodeURIComponent(/\/approvals\/([^/]+)$/.exec(result.inputRequests["approval_page"]?.params.url ?? "")?.[1] ?? "");
    const forged = { approval_decision: { action: "accept", content: { decision: "approve" } } };
    const r = await modernRpc(url, aliceApprover, "tools/call", { ...call, requestState: result.requestState, inputResponses: forged }, both);
    expect(r.body.result?.["resultType"]).toBe("input_required");
    const approval = await gate.runtime.approvals.get(approvalId);
    expect(approval?.status).toBe("pending");
    expect(approval?.decision).toBeNull();
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });
});
