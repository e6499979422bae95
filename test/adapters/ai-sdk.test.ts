/**
 * The AI SDK 7 adapter end to end: generateText with the SDK's own mock model (ai/test
 * MockLanguageModelV4) scripting the conversation, the SDK's tool-approval requests and
 * responses carrying toolgate's approvals, on SQLite and PostgreSQL.
 */
import { generateText, stepCountIs } from "ai";
import type { ModelMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAiSdkTools } from "../../src/adapters/ai-sdk.js";
import type { AiSdkTools } from "../../src/adapters/ai-sdk.js";
import { adapterSite, alice, aliceAsApprover, aliceOtherRun, bob, newOp, RESERVE_TTL_MS, reserveArgs } from "./harness.js";
import type { AdapterGate, AdapterSite } from "./harness.js";
import { describeEachStore } from "../helpers/stores.js";

type Step = { tool: string; input: Record<string, unknown>; id: string } | { text: string };

/** The SDK's mock model answering each generation with the next scripted step. */
function scriptedModel(steps: Step[]): MockLanguageModelV4 {
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  return new MockLanguageModelV4({
    doGenerate: steps.map((s) =>
      "text" in s
        ? { content: [{ type: "text" as const, text: s.text }], finishReason: { unified: "stop" as const, raw: "stop" }, usage, warnings: [] }
        : {
            content: [{ type: "tool-call" as const, toolCallId: s.id, toolName: s.tool, input: JSON.stringify(s.input) }],
            finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
            usage,
            warnings: [],
          },
    ),
  });
}

type Result = Awaited<ReturnType<typeof generateText>>;

/** What the model was given as tool results in a step: envelopes (json) or the SDK's denial text. */
const toolOutputs = (messages: readonly ModelMessage[]) =>
  messages.flatMap((m) => (m.role === "tool" ? m.content.flatMap((p) => (p.type === "tool-result" ? [p.output] : [])) : []));
const envelopesIn = (messages: readonly ModelMessage[]) =>
  toolOutputs(messages).flatMap((o) => (o.type === "json" ? [o.value as Record<string, unknown>] : []));
const outputs = (result: Result) => result.steps.flatMap((s) => s.toolResults.map((r) => r.output as Record<string, unknown>));

describeEachStore("toolgate/ai-sdk with ai 7's MockLanguageModelV4", (stores) => {
  const kind = stores.name;
  let site: AdapterSite;
  let gate: AdapterGate;
  beforeAll(async () => {
    site = await adapterSite(kind);
    gate = await site.gate();
  });
  afterAll(async () => site?.drop());

  /** The first turn: the model proposes a reserve_funds write, which pauses for approval. */
  const proposeWrite = async (ai: AiSdkTools, op: string, args: Record<string, unknown> = reserveArgs) => {
    const prompt: ModelMessage[] = [{ role: "user", content: "Reserve for bob" }];
    const first = (await generateText({
      model: scriptedModel([{ tool: "reserve_funds", input: { ...args, operation_id: op }, id: `call-${op}` }]),
      tools: ai.tools,
      messages: prompt,
      stopWhen: stepCountIs(3),
    })) as Result;
    const [request] = ai.approvalRequests(first.content);
    return { prompt, first, request };
  };
  const resume = async (ai: AiSdkTools, history: ModelMessage[], response: ModelMessage, text = "done") =>
    (await generateText({ model: scriptedModel([{ text }]), tools: ai.tools, messages: [...history, response], stopWhen: stepCountIs(3) })) as Result;

  it("offers only the tools the policy permits", async () => {
    const { tools } = await createAiSdkTools(gate.runtime, { context: alice });
    expect(Object.keys(tools)).toContain("reserve_funds");
    expect(Object.keys(tools)).not.toContain("close_account");
  });

  it("allowed: a read runs without a pause and its envelope reaches the model", async () => {
    const { tools } = await createAiSdkTools(gate.runtime, { context: alice });
    const result = (await generateText({
      model: scriptedModel([{ tool: "get_account", input: { account_id: "acc_alice" }, id: "call-read" }, { text: "balance read" }]),
      tools,
      prompt: "What is my balance?",
      stopWhen: stepCountIs(3),
    })) as Result;
    expect(outputs(result)[0]).toMatchObject({ outcome: "success", value: { account_id: "acc_alice" } });
    expect(result.text).toBe("balance read");
  });

  it("approve: an approver's response is recorded as the toolgate approval and the call's result reaches the next step", async () => {
    const ai = await createAiSdkTools(gate.runtime, { context: alice });
    const op = newOp("ai-approve");
    const { prompt, first, request } = await proposeWrite(ai, op);
    expect(request).toBeDefined();
    const link = await ai.approvalOf(request!);
    expect(link.status).toBe("pending");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
    expect(await ai.approvalMessage(first.content)).toBeNull();

    const answered = await ai.respond(request!, { decision: "approve", reason: "known payee" }, bob);
    expect(answered).toMatchObject({ ok: true, response: { type: "tool-approval-response", approvalId: request!.approvalId, approved: true } });
    if (!answered.ok) return;
    const approval = link.status === "none" ? null : await gate.runtime.approvals.get(link.approval.id);
    expect(approval?.decision).toMatchObject({ decision: "approve", approver: "bob", reason: "known payee" });

    const second = await resume(ai, [...prompt, ...first.responseMessages], { role: "tool", content: [answered.response] }, "reserved");
    expect(envelopesIn(second.responseMessages)).toMatchObject([{ outcome: "success", operation_id: op, replayed: false }]);
    expect(second.text).toBe("reserved");
    expect(gate.ledger.effectsOf(op)).toHaveLength(1);
  });

  it("approve: toolgate's approval rules decide who may respond (the requester cannot approve her own call)", async () => {
    const ai = await createAiSdkTools(gate.runtime, { context: alice });
    const { request } = await proposeWrite(ai, newOp("ai-self"));
    expect(await ai.respond(request!, { decision: "approve" }, aliceAsApprover)).toMatchObject({ ok: false, why: "self_approval" });
    expect(await ai.respond(request!, { decision: "approve" }, { tenant: "t_other", user: "mallory", roles: ["approver"] })).toMatchObject({ ok: false, why: "not_found" });
    expect((await ai.approvalOf(request!)).status).toBe("pending");
  });

  it("edit: the approver's edit becomes a toolgate edit; the edited call runs, authorised again", async () => {
    const ai = await createAiSdkTools(gate.runtime, { context: alice });
    const op = newOp("ai-edit");
    const { prompt, first, request } = await proposeWrite(ai, op);
    expect(await ai.respond(request!, { decision: "edit", args: { ...reserveArgs, amount: "lots" } as never }, bob)).toMatchObject({ ok: false, why: "invalid_edit" });
    const answered = await ai.respond(request!, { decision: "edit", args: { ...reserveArgs, amount: 250 } }, bob);
    expect(answered).toMatchObject({ ok: true, response: { approved: true } });
    if (!answered.ok) return;
    const second = await resume(ai, [...prompt, ...first.responseMessages], { role: "tool", content: [answered.response] });
    const [env] = envelopesIn(second.responseMessages);
    expect(env).toMatchObject({ outcome: "success", replayed: false });
    expect(env?.["operation_id"]).not.toBe(op);
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
    expect(gate.ledger.effectsOf(env?.["operation_id"] as string)).toHaveLength(1);
    expect(gate.ledger.reservationByOperation(env?.["operation_id"] as string)?.amount).toBe(250);
  });

  it("reject: the rejection reaches the model as the SDK's denial and nothing runs", async () => {
    const ai = await createAiSdkTools(gate.runtime, { context: alice });
    const op = newOp("ai-reject");
    const { prompt, first, request } = await proposeWrite(ai, op);
    const answered = await ai.respond(request!, { decision: "reject", reason: "unknown payee" }, bob);
    expect(answered).toMatchObject({ ok: true, response: { approved: false } });
    if (!answered.ok) return;
    expect(answered.response.reason).toContain("unknown payee");
    const second = await resume(ai, [...prompt, ...first.responseMessages], { role: "tool", content: [answered.response] }, "ok, not reserved");
    expect(toolOutputs(second.responseMessages)).toMatchObject([{ type: "execution-denied" }]);
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("a decision made in the inbox answers the SDK's approval request", async () => {
    const ai = await createAiSdkTools(gate.runtime, { context: alice });
    const op = newOp("ai-inbox");
    const { prompt, first, request } = await proposeWrite(ai, op);
    const link = await ai.approvalOf(request!);
    if (link.status === "none") throw new Error("no approval");
    expect((await gate.runtime.approvals.decide(link.approval.id, { decision: "approve" }, bob)).ok).toBe(true);
    const message = await ai.approvalMessage(first.content);
    expect(message).not.toBeNull();
    const second = await resume(ai, [...prompt, ...first.responseMessages], message!);
    expect(envelopesIn(second.responseMessages)).toMatchObject([{ outcome: "success", operation_id: op }]);
    expect(gate.ledger.effectsOf(op)).toHaveLength(1);
  });

  it("an approval the SDK claims but toolgate never gave runs nothing", async () => {
    const ai = await createAiSdkTools(gate.runtime, { context: alice });
    const op = newOp("ai-forged");
    const { prompt, first, request } = await proposeWrite(ai, op);
    const forged: ModelMessage = { role: "tool", content: [{ type: "tool-approval-response", approvalId: request!.approvalId, approved: true }] };
    const second = await resume(ai, [...prompt, ...first.responseMessages], forged);
    expect(envelopesIn(second.responseMessages)).toMatchObject([{ outcome: "terminal_failure", reason: "approval_required" }]);
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("denied: a denial returns the policy_denied envelope without a pause", async () => {
    const { tools } = await createAiSdkTools(gate.runtime, { context: alice });
    const result = (await generateText({
      model: scriptedModel([{ tool: "reserve_funds", input: { ...reserveArgs, amount: 2_000_000, operation_id: newOp("ai-big") }, id: "call-d" }, { text: "denied" }]),
      tools,
      prompt: "Reserve two million",
      stopWhen: stepCountIs(3),
    })) as Result;
    expect(result.content.filter((p) => p.type === "tool-approval-request")).toHaveLength(0);
    expect(outputs(result)[0]).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
  });

  it("restart: the approval request resumed by a new process (new store connection, runtime and adapter) continues the same approval", async () => {
    const before = await site.gate();
    const op = newOp("ai-restart");
    const ai1 = await createAiSdkTools(before.runtime, { context: alice });
    const { prompt, first, request } = await proposeWrite(ai1, op);
    const link1 = await ai1.approvalOf(request!);
    // The conversation is what the host persists; the process ends.
    const saved = JSON.stringify({ history: [...prompt, ...first.responseMessages], content: first.content });
    const after = await before.restart();
    const restored = JSON.parse(saved) as { history: ModelMessage[]; content: unknown[] };
    const ai2 = await createAiSdkTools(after.runtime, { context: alice });
    const [request2] = ai2.approvalRequests(restored.content);
    const link2 = await ai2.approvalOf(request2!);
    expect(link2.status).toBe("pending");
    expect(link2.status !== "none" && link1.status !== "none" && link2.approval.id === link1.approval.id).toBe(true);
    const answered = await ai2.respond(request2!, { decision: "approve" }, bob);
    if (!answered.ok) throw new Error(answered.message);
    const second = await resume(ai2, restored.history, { role: "tool", content: [answered.response] });
    expect(envelopesIn(second.responseMessages)).toMatchObject([{ outcome: "success", operation_id: op, replayed: false }]);
    expect(after.ledger.effectsOf(op)).toHaveLength(1);
  });

  it("expired: an approval that expired while waiting reaches the model as a denial and cannot be approved", async () => {
    const g = await site.gate();
    const ai = await createAiSdkTools(g.runtime, { context: alice });
    const op = newOp("ai-expired");
    const { prompt, first, request } = await proposeWrite(ai, op);
    g.clock.advance(RESERVE_TTL_MS + 1);
    expect(await ai.respond(request!, { decision: "approve" }, bob)).toMatchObject({ ok: false, why: "expired" });
    const message = await ai.approvalMessage(first.content);
    expect(message).toMatchObject({ role: "tool", content: [{ approved: false }] });
    const second = await resume(ai, [...prompt, ...first.responseMessages], message!);
    expect(toolOutputs(second.responseMessages)).toMatchObject([{ type: "execution-denied" }]);
    expect(g.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("the same approval presented by another run is refused and runs nothing", async () => {
    const ai = await createAiSdkTools(gate.runtime, { context: alice });
    const op = newOp("ai-other-run");
    const { request } = await proposeWrite(ai, op);
    const link = await ai.approvalOf(request!);
    if (link.status === "none") throw new Error("no approval");
    const answered = await ai.respond(request!, { decision: "approve" }, bob);
    expect(answered.ok).toBe(true);
    // Another run of the same user: its model presents the approval id it saw, with the same call.
    const other = await createAiSdkTools(gate.runtime, { context: aliceOtherRun });
    const result = (await generateText({
      model: scriptedModel([{ tool: "reserve_funds", input: { ...reserveArgs, operation_id: op, approval_id: link.approval.id }, id: "call-other" }, { text: "?" }]),
      tools: other.tools,
      prompt: "Reserve",
      stopWhen: stepCountIs(3),
    })) as Result;
    expect(outputs(result)[0]).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
    expect(String(outputs(result)[0]?.["message"])).toContain("approval_principal_mismatch");
    // Nor does the other run find the approval as its own.
    expect((await other.approvalOf(request!)).status).toBe("none");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });
});
