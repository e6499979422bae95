/**
 * The careful scripted agent: branches on the envelope, never on prose. It derives
 * one operation id per intent and reuses it on every retry, retries only retryable
 * answers within the tool's bound, stops on terminal ones, reads observed_state
 * (failed items, contradictions, stale state) and reads the resource back before
 * trusting a doubtful success, waits for approvals, and calls nothing when the
 * request is answered by the context, ambiguous, forbidden or not possible here.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { JsonObject, JsonValue } from "../../manifest.js";
import { contextFacts, exchanges, userMessage } from "../agent.js";
import type { Agent, AgentStep, AgentTool, Exchange } from "../agent.js";
import { interpret } from "./escrow-intents.js";
import type { PlannedCall } from "./escrow-intents.js";

/** Longest retry_after_ms the agent is willing to wait for within one request. */
const WAIT_BUDGET_MS = 10_000;

/** What a write's observed state must show once it took effect. */
const effectShows: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  reserve_funds: { state: "reserved" },
  release_funds: { state: "released" },
  confirm_transfer: { state: "transferred" },
  freeze_account: { status: "frozen" },
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string => JSON.stringify(v ?? null);

/** The operation id of an intent: derived from it, so every retry of it carries the same one. */
export const operationIdFor = (call: PlannedCall): string =>
  `op_${createHash("sha256").update(`${call.tool}\u0000${canonicalize(call.args) ?? ""}`).digest("hex").slice(0, 20)}`;

/** The read that shows a write's resource as it is now. */
function readBack(call: PlannedCall, result: JsonObject, tools: readonly AgentTool[]): PlannedCall | null {
  const offered = new Set(tools.map((t) => t.name));
  const a = call.args;
  if (typeof a.reservation_id === "string" && offered.has("get_reservation")) return { tool: "get_reservation", args: { reservation_id: a.reservation_id } };
  if (call.tool === "reserve_funds" && typeof a.account_id === "string" && offered.has("list_transactions")) return { tool: "list_transactions", args: { account_id: a.account_id } };
  if (typeof a.account_id === "string" && offered.has("get_account")) return { tool: "get_account", args: { account_id: a.account_id } };
  void result;
  return null;
}

export function carefulAgent(): Agent {
  return {
    name: "careful",
    async step(messages, tools): Promise<AgentStep> {
      const intent = interpret(userMessage(messages), contextFacts(messages), tools);
      if (intent.kind !== "call") return { kind: "final", text: intent.text };
      const history = exchanges(messages);
      const callOf = (c: PlannedCall, n: number): AgentStep => {
        const tool = tools.find((t) => t.name === c.tool);
        return {
          kind: "tool_calls",
          calls: [{ id: `call_${n}`, tool: c.tool, args: c.args, ...(tool?.requires_operation_id === true ? { operation_id: operationIdFor(c) } : {}) }],
        };
      };
      if (history.length === 0) return callOf(intent.call, 0);
      const last = history[history.length - 1]!;
      const r = last.result ?? {};
      const current: PlannedCall = { tool: last.call.tool, args: isObject(last.call.args) ? last.call.args : {} };
      const isMain = [intent.call, intent.alternative].some((c) => c !== null && c.tool === current.tool && canonicalize(c.args) === canonicalize(current.args));
      if (!isMain) {
        // The answer to a read-back: report the state as it is, and why it was read.
        const doubt = history.find((h) => h.call.tool !== current.tool);
        return { kind: "final", text: `Checked with ${current.tool}: ${text(r.value ?? r)}. The ${doubt?.call.tool ?? "earlier"} answer could not be trusted as it was (${String(doubt?.result?.message ?? "its observed state did not show the effect")}).` };
      }
      const attempts = history.filter((h) => h.call.tool === current.tool && canonicalize(h.call.args) === canonicalize(current.args)).length;
      const tool = tools.find((t) => t.name === current.tool);
      const read = (): AgentStep | null => {
        const back = readBack(current, r, tools);
        return back === null ? null : callOf(back, history.length);
      };
      switch (r.outcome) {
        case "success": {
          const want = effectShows[current.tool];
          const observed = isObject(r.observed_state) ? r.observed_state : null;
          const contradicted = want !== undefined && Object.entries(want).some(([k, v]) => observed === null || observed[k] !== v);
          if (contradicted) {
            const step = read();
            if (step !== null) return step;
            return { kind: "final", text: `${current.tool} said success, but its observed state ${text(observed)} does not show the effect; I could not verify it.` };
          }
          return { kind: "final", text: `Done: ${current.tool} succeeded${typeof r.resource_id === "string" ? ` (${r.resource_id})` : ""}: ${text(r.value)}.` };
        }
        case "retryable_failure": {
          const after = typeof r.retry_after_ms === "number" ? r.retry_after_ms : 0;
          if (after > WAIT_BUDGET_MS) {
            if (intent.alternative !== null && current.tool === intent.call.tool) return callOf(intent.alternative, history.length);
            return { kind: "final", text: `${current.tool} is unavailable for ${Math.round(after / 1000)} s (${String(r.message)}); try again later.` };
          }
          const bound = Math.max(tool?.max_attempts ?? 1, 3);
          if (attempts < bound) {
            await sleep(after); // the hint is part of the answer: wait it out before the retry
            return callOf(current, history.length);
          }
          return { kind: "final", text: `${current.tool} still failed after ${attempts} attempts (${String(r.message)}); stopping.` };
        }
        case "terminal_failure": {
          if (r.reason === "approval_required") {
            return { kind: "final", text: `${current.tool} is waiting for a human approval (${String(r.approval_id)}). I will not retry or work around it; it proceeds once approved.` };
          }
          const observed = isObject(r.observed_state) ? r.observed_state : null;
          const failed = observed !== null && Array.isArray(observed.failed_items) ? (observed.failed_items as JsonValue[]) : null;
          if (failed !== null) {
            return { kind: "final", text: `Only partly done: ${current.tool} reported ${failed.length} failed item(s): ${failed.map(text).join(", ")}. What did go through: ${text(observed?.value)}. I am not retrying; the failed items need attention.` };
          }
          if (/silent failure|contradicts the claim/.test(String(r.message))) {
            const step = read();
            if (step !== null) return step;
          }
          if (intent.alternative !== null && current.tool === intent.call.tool && canonicalize(current.args) === canonicalize(intent.call.args)) {
            return callOf(intent.alternative, history.length);
          }
          return { kind: "final", text: `${current.tool} failed (${String(r.failure ?? r.reason)}): ${String(r.message)}. Not retrying.` };
        }
        default:
          return { kind: "final", text: `${current.tool} gave an answer I do not understand (${text(r)}); treating it as a failure and stopping.` };
      }
    },
  };
}

export type { Exchange };
