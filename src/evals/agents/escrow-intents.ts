/**
 * A deterministic reader of escrow requests, standing in for a model's language
 * understanding in the scripted agents: it maps a user message (and the facts in
 * context) to the call that serves it, or to a reason to call nothing. It reads the
 * words of the request, never a scenario's id or expectation.
 */
import type { JsonObject } from "../../manifest.js";
import type { AgentTool } from "../agent.js";

export interface PlannedCall {
  readonly tool: string;
  readonly args: JsonObject;
}

export type Interpretation =
  | { readonly kind: "call"; readonly call: PlannedCall; /** What the user said to do if this fails. */ readonly alternative: PlannedCall | null }
  /** Call nothing; `guess` is the call a tool-happy agent would make anyway. */
  | { readonly kind: "answer" | "clarify" | "refuse" | "unavailable" | "nothing"; readonly text: string; readonly guess: PlannedCall };

const accounts = (s: string): string[] => s.match(/\bacc_[a-z0-9]+\b/g) ?? [];
const reservations = (s: string): string[] => s.match(/\bres_[a-z0-9]+\b/g) ?? [];

function money(s: string): { amount: number; currency: string } | null {
  const m = /(\d+(?:[.,]\d{1,2})?)\s*(EUR|USD|GBP)\b/i.exec(s) ?? /\b(EUR|USD|GBP)\s*(\d+(?:[.,]\d{1,2})?)/i.exec(s);
  if (m === null) return null;
  const [num, cur] = /\d/.test(m[1]!) ? [m[1]!, m[2]!] : [m[2]!, m[1]!];
  return { amount: Math.round(Number(num.replace(",", ".")) * 100), currency: cur.toUpperCase() };
}

/** Text after the first colon, or inside quotes: the free-form part of a request. */
function freeText(s: string): string | null {
  const q = /["“]([^"”]+)["”]/.exec(s);
  if (q !== null) return q[1]!.trim();
  const i = s.indexOf(":");
  return i >= 0 && s.slice(i + 1).trim() !== "" ? s.slice(i + 1).trim() : null;
}

const stem = (w: string): string => w.toLowerCase().slice(0, 5);

/** A context fact the question asks about: every word of its key appears (by stem) in the question. */
function factAsked(message: string, context: JsonObject): [string, JsonObject[string]] | null {
  if (!message.includes("?")) return null;
  const words = new Set((message.toLowerCase().match(/[a-z]+/g) ?? []).map(stem));
  for (const [key, value] of Object.entries(context)) {
    if (value === undefined) continue;
    if (key.split("_").every((part) => words.has(stem(part)))) return [key, value];
  }
  return null;
}

function readFor(id: string | undefined, tools: readonly AgentTool[]): PlannedCall {
  const offered = new Set(tools.map((t) => t.name));
  if (id?.startsWith("res_") === true && offered.has("get_reservation")) return { tool: "get_reservation", args: { reservation_id: id } };
  const acc = id?.startsWith("acc_") === true ? id : "acc_unknown";
  if (offered.has("get_account")) return { tool: "get_account", args: { account_id: acc } };
  const first = tools[0];
  return { tool: first?.name ?? "get_account", args: { account_id: acc } };
}

export function interpret(message: string, context: JsonObject, tools: readonly AgentTool[]): Interpretation {
  const text = message.toLowerCase();
  const accs = accounts(message);
  const ress = reservations(message);
  const ctxIds = [...accounts(JSON.stringify(context)), ...reservations(JSON.stringify(context))];
  const anyId = accs[0] ?? ress[0] ?? ctxIds[0];
  const fallback = readFor(anyId, tools);

  const fact = factAsked(message, context);
  if (fact !== null) {
    return { kind: "answer", text: `From what we already know (${fact[0]}): ${JSON.stringify(fact[1])}`, guess: fallback };
  }

  const planned = plan(message, text, accs, ress);
  if (planned === null) {
    return { kind: "nothing", text: "Glad to help. There is nothing for me to do with the tools for that.", guess: fallback };
  }
  if ("missing" in planned) {
    return { kind: "clarify", text: `To ${planned.verb} I need ${planned.missing.join(" and ")}. Could you tell me?`, guess: { tool: planned.tool, args: planned.guess } };
  }
  const tool = tools.find((t) => t.name === planned.call.tool);
  if (tool === undefined) {
    return { kind: "unavailable", text: `I cannot do that here: ${planned.call.tool} is not one of the tools available to me.`, guess: fallback };
  }
  if (tool.effect === "destructive") {
    return { kind: "refuse", text: `${planned.call.tool} is destructive and the policy forbids it; I will not call it. An operator has to do this.`, guess: planned.call };
  }
  return { kind: "call", call: planned.call, alternative: planned.alternative };
}

type Plan =
  | { readonly call: PlannedCall; readonly alternative: PlannedCall | null }
  | { readonly tool: string; readonly verb: string; readonly missing: string[]; readonly guess: JsonObject };

const only = (call: PlannedCall): Plan => ({ call, alternative: null });

function plan(message: string, text: string, accs: string[], ress: string[]): Plan | null {
  const amount = money(message);
  if (/\bclose\b/.test(text)) {
    return accs[0] !== undefined ? only({ tool: "close_account", args: { account_id: accs[0] } }) : { tool: "close_account", verb: "close an account", missing: ["the account id"], guess: { account_id: "acc_unknown" } };
  }
  if (/\bfreeze\b/.test(text)) {
    const reason = freeText(message) ?? "requested by the account holder";
    return accs[0] !== undefined ? only({ tool: "freeze_account", args: { account_id: accs[0], reason } }) : { tool: "freeze_account", verb: "freeze an account", missing: ["the account id"], guess: { account_id: "acc_unknown", reason } };
  }
  if (/\b(release|cancel)\b/.test(text) && !/\breserve\b/.test(text)) {
    return ress[0] !== undefined ? only({ tool: "release_funds", args: { reservation_id: ress[0] } }) : { tool: "release_funds", verb: "release a reservation", missing: ["the reservation id"], guess: { reservation_id: "res_unknown" } };
  }
  if (/\b(pay out|payout of|confirm|settle)\b/.test(text) && ress[0] !== undefined) {
    if (amount === null) return { tool: "confirm_transfer", verb: "pay it out", missing: ["the amount and currency"], guess: { reservation_id: ress[0], amount: 1, currency: "EUR" } };
    return only({ tool: "confirm_transfer", args: { reservation_id: ress[0], ...amount } });
  }
  if (/\b(reserve|hold)\b/.test(text)) {
    const from = /\bfrom\s+(acc_[a-z0-9]+)/.exec(message)?.[1] ?? (accs.length >= 2 ? accs[0] : undefined);
    const to = /\b(?:for|to)\s+(acc_[a-z0-9]+)/.exec(message)?.[1] ?? (accs.length >= 2 ? accs[1] : undefined);
    const missing = [...(amount === null ? ["the amount and currency"] : []), ...(from === undefined ? ["the paying account id"] : []), ...(to === undefined ? ["the recipient's account id"] : [])];
    const args: JsonObject = { account_id: from ?? "acc_unknown", amount: amount?.amount ?? 100, currency: amount?.currency ?? "EUR", recipient: to ?? "acc_unknown" };
    if (missing.length > 0) return { tool: "reserve_funds", verb: "reserve funds", missing, guess: args };
    return only({ tool: "reserve_funds", args });
  }
  if (/\b(notify|e-?mail|text|sms|message)\b/.test(text) && accs[0] !== undefined) {
    const body = freeText(message) ?? "";
    const sms = /\b(text|sms)\b/.test(text.split(/\b(otherwise|if|or else)\b/)[0] ?? text);
    const call: PlannedCall = { tool: "send_notification", args: { account_id: accs[0], channel: sms ? "sms" : "email", message: body } };
    if (body === "") return { tool: "send_notification", verb: "send the message", missing: ["the text to send"], guess: { ...call.args, message: "hello" } };
    const fallsBack = sms && /\b(otherwise|if\b.*\b(down|unavailable|fails|does not work))\b[^.]*\be-?mail\b/.test(text);
    return { call, alternative: fallsBack ? { tool: "send_notification", args: { ...call.args, channel: "email" } } : null };
  }
  if (/\b(transactions|history|activity)\b/.test(text) && accs[0] !== undefined) {
    const limit = /\b(?:last|latest|recent)\s+(\d+)\b/.exec(text)?.[1];
    return only({ tool: "list_transactions", args: limit === undefined ? { account_id: accs[0] } : { account_id: accs[0], limit: Number(limit) } });
  }
  if (ress[0] !== undefined && /\b(state|status|where|what)\b/.test(text)) return only({ tool: "get_reservation", args: { reservation_id: ress[0] } });
  if (accs[0] !== undefined && /\b(balance|status|account)\b/.test(text)) return only({ tool: "get_account", args: { account_id: accs[0] } });
  return null;
}
