/**
 * The LangChain adapter end to end: LangChain v1 `createAgent` with `humanInTheLoopMiddleware`
 * configured by the adapter, and a LangGraph graph whose tools pause with `interrupt()`, both
 * driven by langchain's own FakeToolCallingModel; one human decision is the toolgate approval,
 * whether it comes as the resume Command or from the inbox. SQLite and PostgreSQL.
 */
import { Command, MemorySaver, MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import type { BaseMessage } from "@langchain/core/messages";
import { createAgent, FakeToolCallingModel, humanInTheLoopMiddleware } from "langchain";
import type { AgentMiddleware, HITLRequest } from "langchain";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLangChainTools } from "../../src/adapters/langchain.js";
import type { LangChainTools } from "../../src/adapters/langchain.js";
import type { TrustedContext } from "../../src/generated-runtime.js";
import { adapterSite, alice, aliceAsApprover, aliceOtherRun, bob, newOp, RESERVE_TTL_MS, reserveArgs } from "./harness.js";
import type { AdapterGate, AdapterSite } from "./harness.js";
import { describeEachStore } from "../helpers/stores.js";

type Call = { name: string; args: Record<string, unknown>; id: string };

const toolMessages = (messages: BaseMessage[]) => messages.filter((m) => m.getType() === "tool");
const envelopes = (messages: BaseMessage[]) => toolMessages(messages).map((m) => JSON.parse(String(m.content)) as Record<string, unknown>);
const pausedOn = (out: { __interrupt__?: { value?: unknown }[] }): HITLRequest | undefined => out.__interrupt__?.[0]?.value as HITLRequest | undefined;

describeEachStore("toolgate/langchain in createAgent with humanInTheLoopMiddleware", (stores) => {
  const kind = stores.name;
  let site: AdapterSite;
  let gate: AdapterGate;
  beforeAll(async () => {
    site = await adapterSite(kind);
    gate = await site.gate();
  });
  afterAll(async () => site?.drop());

  /** An agent whose model makes `calls` (one turn), then answers without tools; state kept by `checkpointer`. */
  const agentWith = async (g: AdapterGate, calls: Call[], context: TrustedContext = alice, checkpointer = new MemorySaver()) => {
    const lc = await createLangChainTools(g.runtime, { context });
    const agent = createAgent({
      model: new FakeToolCallingModel({ toolCalls: [calls, []] }),
      tools: lc.tools,
      // The casts: under exactOptionalPropertyTypes (this repository's tsconfig) langchain 1.5 types the options as never and the middleware unassignable.
      middleware: [humanInTheLoopMiddleware({ interruptOn: lc.interruptOn } as never) as unknown as AgentMiddleware],
      checkpointer,
    });
    return { lc, agent, checkpointer };
  };
  const thread = (id: string) => ({ configurable: { thread_id: id } });
  const write = (op: string, args: Record<string, unknown> = reserveArgs): Call[] => [{ name: "reserve_funds", args: { ...args, operation_id: op }, id: `t-${op}` }];
  const start = async (lc: LangChainTools, agent: Awaited<ReturnType<typeof agentWith>>["agent"], id: string) => {
    const out = await agent.invoke({ messages: [{ role: "user", content: "reserve" }] }, thread(id));
    const request = pausedOn(out);
    if (request === undefined) throw new Error("the run did not pause");
    return { out, request, link: await lc.approvalOf(request.actionRequests[0]!) };
  };

  it("allowed: a read runs without a pause", async () => {
    const op = newOp("lc-read");
    const { agent } = await agentWith(gate, [{ name: "get_account", args: { account_id: "acc_alice" }, id: "t-read" }]);
    const out = await agent.invoke({ messages: [{ role: "user", content: "balance?" }] }, thread(op));
    expect(pausedOn(out)).toBeUndefined();
    expect(envelopes(out.messages)).toMatchObject([{ outcome: "success", value: { account_id: "acc_alice" } }]);
  });

  it("approve: the approver's resume decision is the toolgate approval; the call commits once, no second approval", async () => {
    const op = newOp("lc-approve");
    const { lc, agent } = await agentWith(gate, write(op));
    const { request, link } = await start(lc, agent, op);
    expect(link.status).toBe("pending");
    expect(request.actionRequests[0]?.description).toContain(link.status === "none" ? "?" : link.approval.id);
    expect(await lc.decide(request, [{ type: "approve" }], aliceAsApprover)).toMatchObject({ ok: false, refused: [{ why: "self_approval" }] });
    const decided = await lc.decide(request, [{ type: "approve" }], bob);
    if (!decided.ok) throw new Error(JSON.stringify(decided.refused));
    const out = await agent.invoke(decided.command, thread(op));
    expect(pausedOn(out)).toBeUndefined();
    expect(envelopes(out.messages)).toMatchObject([{ outcome: "success", operation_id: op, replayed: false }]);
    expect(gate.ledger.effectsOf(op)).toHaveLength(1);
    const approval = link.status === "none" ? null : await gate.runtime.approvals.get(link.approval.id);
    expect(approval?.decision).toMatchObject({ decision: "approve", approver: "bob" });
  });

  it("edit: the edit becomes a toolgate edit, checked against the tool's schema, and the edited call runs authorised again", async () => {
    const op = newOp("lc-edit");
    const { lc, agent } = await agentWith(gate, write(op));
    const { request } = await start(lc, agent, op);
    const bad = await lc.decide(request, [{ type: "edit", editedAction: { name: "reserve_funds", args: { ...reserveArgs, amount: -5 } } }], bob);
    expect(bad).toMatchObject({ ok: false, refused: [{ why: "invalid_edit" }] });
    const decided = await lc.decide(request, [{ type: "edit", editedAction: { name: "reserve_funds", args: { ...reserveArgs, amount: 400, operation_id: op } } }], bob);
    if (!decided.ok) throw new Error(JSON.stringify(decided.refused));
    const out = await agent.invoke(decided.command, thread(op));
    const [env] = envelopes(out.messages);
    expect(env).toMatchObject({ outcome: "success", replayed: false });
    expect(env?.["operation_id"]).not.toBe(op);
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
    expect(gate.ledger.reservationByOperation(env?.["operation_id"] as string)?.amount).toBe(400);
  });

  it("reject: the rejection reaches the agent as the middleware's rejection message and nothing runs", async () => {
    const op = newOp("lc-reject");
    const { lc, agent } = await agentWith(gate, write(op));
    const { request } = await start(lc, agent, op);
    const decided = await lc.decide(request, [{ type: "reject", message: "unknown payee" }], bob);
    if (!decided.ok) throw new Error(JSON.stringify(decided.refused));
    const out = await agent.invoke(decided.command, thread(op));
    const [message] = toolMessages(out.messages);
    expect(String(message?.content)).toContain("unknown payee");
    expect((message as { status?: string } | undefined)?.status).toBe("error");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("a decision made in the inbox resumes the run as the same approval", async () => {
    const op = newOp("lc-inbox");
    const { lc, agent } = await agentWith(gate, write(op));
    const { request, link } = await start(lc, agent, op);
    expect(await lc.resumeCommand(request)).toBeNull();
    if (link.status === "none") throw new Error("no approval");
    expect((await gate.runtime.approvals.decide(link.approval.id, { decision: "approve" }, bob)).ok).toBe(true);
    const command = await lc.resumeCommand(request);
    const out = await agent.invoke(command!, thread(op));
    expect(envelopes(out.messages)).toMatchObject([{ outcome: "success", operation_id: op }]);
    expect(gate.ledger.effectsOf(op)).toHaveLength(1);
  });

  it("a resume Command made without toolgate's decision runs nothing", async () => {
    const op = newOp("lc-forged");
    const { lc, agent } = await agentWith(gate, write(op));
    await start(lc, agent, op);
    const out = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), thread(op));
    expect(envelopes(out.messages)).toMatchObject([{ outcome: "terminal_failure", reason: "approval_required" }]);
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("denied: a denial returns the policy_denied envelope without a pause", async () => {
    const op = newOp("lc-big");
    const { agent } = await agentWith(gate, write(op, { ...reserveArgs, amount: 2_000_000 }));
    const out = await agent.invoke({ messages: [{ role: "user", content: "two million" }] }, thread(op));
    expect(pausedOn(out)).toBeUndefined();
    expect(envelopes(out.messages)).toMatchObject([{ outcome: "terminal_failure", reason: "policy_denied" }]);
  });

  it("restart: a paused run resumed by a new process (new store connection, runtime and adapter) continues the same approval", async () => {
    const before = await site.gate();
    const op = newOp("lc-restart");
    const one = await agentWith(before, write(op));
    const { request, link } = await start(one.lc, one.agent, op);
    const after = await before.restart();
    // The graph's checkpoint outlives the process (the checkpointer's store); everything of toolgate is new.
    const two = await agentWith(after, write(op), alice, one.checkpointer);
    const link2 = await two.lc.approvalOf(request.actionRequests[0]!);
    expect(link.status !== "none" && link2.status !== "none" && link2.approval.id === link.approval.id).toBe(true);
    const decided = await two.lc.decide(request, [{ type: "approve" }], bob);
    if (!decided.ok) throw new Error(JSON.stringify(decided.refused));
    const out = await two.agent.invoke(decided.command, thread(op));
    expect(envelopes(out.messages)).toMatchObject([{ outcome: "success", operation_id: op, replayed: false }]);
    expect(after.ledger.effectsOf(op)).toHaveLength(1);
  });

  it("expired: an approval that expired while waiting reaches the agent as a rejection and cannot be approved", async () => {
    const g = await site.gate();
    const op = newOp("lc-expired");
    const { lc, agent } = await agentWith(g, write(op));
    const { request } = await start(lc, agent, op);
    g.clock.advance(RESERVE_TTL_MS + 1);
    expect(await lc.decide(request, [{ type: "approve" }], bob)).toMatchObject({ ok: false, refused: [{ why: "expired" }] });
    const command = await lc.resumeCommand(request);
    expect(command).not.toBeNull();
    const out = await agent.invoke(command!, thread(op));
    expect(String(toolMessages(out.messages)[0]?.content)).toContain("expired");
    expect(g.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("the same approval presented by another run is refused and runs nothing", async () => {
    const op = newOp("lc-other-run");
    const { lc, agent } = await agentWith(gate, write(op));
    const { request, link } = await start(lc, agent, op);
    if (link.status === "none") throw new Error("no approval");
    const decided = await lc.decide(request, [{ type: "approve" }], bob);
    expect(decided.ok).toBe(true);
    // Another run's model presents the approval id with the same call.
    const hostile = await agentWith(gate, [{ name: "reserve_funds", args: { ...reserveArgs, operation_id: op, approval_id: link.approval.id }, id: "t-hostile" }], aliceOtherRun);
    const out = await hostile.agent.invoke({ messages: [{ role: "user", content: "reserve" }] }, thread(`${op}-hostile`));
    expect(pausedOn(out)).toBeUndefined();
    expect(envelopes(out.messages)).toMatchObject([{ outcome: "terminal_failure", reason: "policy_denied" }]);
    expect(String(envelopes(out.messages)[0]?.["message"])).toContain("approval_principal_mismatch");
    // Nor does the other run's bridge find it as its own.
    const otherLc = await createLangChainTools(gate.runtime, { context: aliceOtherRun });
    expect((await otherLc.approvalOf(request.actionRequests[0]!)).status).toBe("none");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });
});

describeEachStore("toolgate/langchain tools pausing with LangGraph interrupt()", (stores) => {
  const kind = stores.name;
  let site: AdapterSite;
  let gate: AdapterGate;
  beforeAll(async () => {
    site = await adapterSite(kind);
    gate = await site.gate();
  });
  afterAll(async () => site?.drop());

  /** A hand-built LangGraph: model -> tools -> model, the tools pausing themselves. */
  const graphWith = async (g: AdapterGate, calls: Call[], context: TrustedContext = alice, checkpointer = new MemorySaver()) => {
    const lc = await createLangChainTools(g.runtime, { context, pause: "interrupt" });
    const model = new FakeToolCallingModel({ toolCalls: [calls, []] }).bindTools(lc.tools);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode("tools", new ToolNode(lc.tools))
      .addEdge("__start__", "model")
      .addConditionalEdges("model", (state) => ((state.messages.at(-1) as { tool_calls?: unknown[] }).tool_calls?.length ? "tools" : "__end__"))
      .addEdge("tools", "model")
      .compile({ checkpointer });
    return { lc, graph, checkpointer };
  };
  const thread = (id: string) => ({ configurable: { thread_id: id } });

  it("approve through the resume Command: one decision, the call commits once", async () => {
    const op = newOp("lg-approve");
    const { lc, graph } = await graphWith(gate, [{ name: "reserve_funds", args: { ...reserveArgs, operation_id: op }, id: "g-1" }]);
    const first = await graph.invoke({ messages: [{ role: "user", content: "reserve" }] }, thread(op));
    const request = pausedOn(first as never);
    expect(request?.actionRequests[0]?.name).toBe("reserve_funds");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
    const decided = await lc.decide(request!, [{ type: "approve" }], bob);
    if (!decided.ok) throw new Error(JSON.stringify(decided.refused));
    const out = await graph.invoke(decided.command as never, thread(op));
    expect(envelopes(out.messages)).toMatchObject([{ outcome: "success", operation_id: op, replayed: false }]);
    expect(gate.ledger.effectsOf(op)).toHaveLength(1);
  });

  it("a resume without toolgate's decision pauses again; a rejection in the inbox reaches the model as an error tool message", async () => {
    const op = newOp("lg-reject");
    const { lc, graph } = await graphWith(gate, [{ name: "reserve_funds", args: { ...reserveArgs, operation_id: op }, id: "g-2" }]);
    const first = await graph.invoke({ messages: [{ role: "user", content: "reserve" }] }, thread(op));
    const request = pausedOn(first as never)!;
    const again = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }) as never, thread(op));
    expect(pausedOn(again as never)).toBeDefined();
    const link = await lc.approvalOf(request.actionRequests[0]!);
    if (link.status === "none") throw new Error("no approval");
    expect((await gate.runtime.approvals.decide(link.approval.id, { decision: "reject", reason: "no" }, bob)).ok).toBe(true);
    const out = await graph.invoke((await lc.resumeCommand(request)) as never, thread(op));
    const [message] = toolMessages(out.messages);
    expect(String(message?.content)).toContain("rejected by bob");
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  const pauseOn = async (graph: Awaited<ReturnType<typeof graphWith>>["graph"], id: string) => {
    const first = await graph.invoke({ messages: [{ role: "user", content: "reserve" }] }, thread(id));
    return pausedOn(first as never);
  };
  const write = (op: string, args: Record<string, unknown> = reserveArgs): Call[] => [{ name: "reserve_funds", args: { ...args, operation_id: op }, id: `g-${op}` }];

  it("allowed and denied calls run without a pause", async () => {
    const read = await graphWith(gate, [{ name: "get_account", args: { account_id: "acc_alice" }, id: "g-read" }]);
    const r = await read.graph.invoke({ messages: [{ role: "user", content: "balance" }] }, thread(newOp("lg-read")));
    expect(pausedOn(r as never)).toBeUndefined();
    expect(envelopes(r.messages)).toMatchObject([{ outcome: "success" }]);
    const big = await graphWith(gate, write(newOp("lg-big"), { ...reserveArgs, amount: 2_000_000 }));
    const d = await big.graph.invoke({ messages: [{ role: "user", content: "two million" }] }, thread(newOp("lg-big-t")));
    expect(pausedOn(d as never)).toBeUndefined();
    expect(envelopes(d.messages)).toMatchObject([{ outcome: "terminal_failure", reason: "policy_denied" }]);
  });

  it("edit: the edited call runs, authorised again, under its own operation id", async () => {
    const op = newOp("lg-edit");
    const { lc, graph } = await graphWith(gate, write(op));
    const request = (await pauseOn(graph, op))!;
    const decided = await lc.decide(request, [{ type: "edit", editedAction: { name: "reserve_funds", args: { ...reserveArgs, amount: 120 } } }], bob);
    if (!decided.ok) throw new Error(JSON.stringify(decided.refused));
    const out = await graph.invoke(decided.command as never, thread(op));
    const [env] = envelopes(out.messages);
    expect(env).toMatchObject({ outcome: "success" });
    expect(env?.["operation_id"]).not.toBe(op);
    expect(gate.ledger.reservationByOperation(env?.["operation_id"] as string)?.amount).toBe(120);
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("restart: a new process (new store connection, runtime, adapter and graph over the same checkpoint) continues the same approval", async () => {
    const before = await site.gate();
    const op = newOp("lg-restart");
    const one = await graphWith(before, write(op));
    const request = (await pauseOn(one.graph, op))!;
    const link1 = await one.lc.approvalOf(request.actionRequests[0]!);
    const after = await before.restart();
    const two = await graphWith(after, write(op), alice, one.checkpointer);
    const link2 = await two.lc.approvalOf(request.actionRequests[0]!);
    expect(link1.status !== "none" && link2.status !== "none" && link1.approval.id === link2.approval.id).toBe(true);
    const decided = await two.lc.decide(request, [{ type: "approve" }], bob);
    if (!decided.ok) throw new Error(JSON.stringify(decided.refused));
    const out = await two.graph.invoke(decided.command as never, thread(op));
    expect(envelopes(out.messages)).toMatchObject([{ outcome: "success", operation_id: op, replayed: false }]);
    expect(after.ledger.effectsOf(op)).toHaveLength(1);
  });

  it("expired: an approval that expired while waiting reaches the model as an error tool message; nothing runs", async () => {
    const g = await site.gate();
    const op = newOp("lg-expired");
    const { lc, graph } = await graphWith(g, write(op));
    const request = (await pauseOn(graph, op))!;
    g.clock.advance(RESERVE_TTL_MS + 1);
    expect(await lc.decide(request, [{ type: "approve" }], bob)).toMatchObject({ ok: false, refused: [{ why: "expired" }] });
    const out = await graph.invoke((await lc.resumeCommand(request)) as never, thread(op));
    const [message] = toolMessages(out.messages);
    expect(String(message?.content)).toContain("expired");
    expect((message as { status?: string } | undefined)?.status).toBe("error");
    expect(g.ledger.effectsOf(op)).toHaveLength(0);
  });

  it("the same approval presented by another run is refused and runs nothing", async () => {
    const op = newOp("lg-other-run");
    const { lc, graph } = await graphWith(gate, write(op));
    const request = (await pauseOn(graph, op))!;
    const link = await lc.approvalOf(request.actionRequests[0]!);
    if (link.status === "none") throw new Error("no approval");
    expect((await lc.decide(request, [{ type: "approve" }], bob)).ok).toBe(true);
    const hostile = await graphWith(gate, [{ name: "reserve_funds", args: { ...reserveArgs, operation_id: op, approval_id: link.approval.id }, id: "g-hostile" }], aliceOtherRun);
    const out = await hostile.graph.invoke({ messages: [{ role: "user", content: "reserve" }] }, thread(`${op}-hostile`));
    expect(pausedOn(out as never)).toBeUndefined();
    expect(envelopes(out.messages)).toMatchObject([{ outcome: "terminal_failure", reason: "policy_denied" }]);
    expect(gate.ledger.effectsOf(op)).toHaveLength(0);
  });
});
