/**
 * The `escrow` surface: the in-memory ledger behind the shipped tools.yaml, seeded
 * from a scenario's `state` ({ accounts?, reservations? }) and recording every
 * effect its handlers apply.
 */
import type { Account, Reservation } from "../demo/escrow.js";
import { EscrowLedger, defaultAccounts, escrowHandlers, escrowReconcilers } from "../demo/escrow.js";
import type { InvokeContext } from "../generated-runtime.js";
import type { JsonObject } from "../manifest.js";
import type { LooseHandler, LooseReconciler } from "../runtime/types.js";
import { SurfaceStateError } from "./surface.js";
import type { SurfaceEffect, SurfaceFactory, SurfaceInstance } from "./surface.js";

const currencies = ["EUR", "USD", "GBP"] as const;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function accountsOf(state: JsonObject | null): Account[] {
  const list = state?.accounts;
  if (list === undefined) return [...defaultAccounts];
  if (!Array.isArray(list)) throw new SurfaceStateError("state.accounts must be a list of { account_id, balance, currency, status }");
  return list.map((a, i) => {
    if (!isRecord(a) || typeof a.account_id !== "string" || typeof a.balance !== "number" || !currencies.includes(a.currency as never) || !["open", "frozen", "closed"].includes(a.status as string)) {
      throw new SurfaceStateError(`state.accounts[${i}] must be { account_id, balance (integer), currency (EUR|USD|GBP), status (open|frozen|closed) }`);
    }
    return { account_id: a.account_id, balance: a.balance, currency: a.currency as Account["currency"], status: a.status as Account["status"] };
  });
}

function reservationsOf(state: JsonObject | null): Reservation[] {
  const list = state?.reservations ?? [];
  if (!Array.isArray(list)) throw new SurfaceStateError("state.reservations must be a list");
  return list.map((r, i) => {
    if (!isRecord(r) || typeof r.reservation_id !== "string" || typeof r.account_id !== "string" || typeof r.amount !== "number" || !currencies.includes(r.currency as never) || typeof r.recipient !== "string") {
      throw new SurfaceStateError(`state.reservations[${i}] must be { reservation_id, account_id, amount, currency, recipient, state? }`);
    }
    const st = r.state ?? "reserved";
    if (!["reserved", "released", "transferred"].includes(st as string)) throw new SurfaceStateError(`state.reservations[${i}].state must be reserved, released or transferred`);
    return { reservation_id: r.reservation_id, account_id: r.account_id, amount: r.amount, currency: r.currency as Reservation["currency"], recipient: r.recipient, state: st as Reservation["state"], operation_id: null };
  });
}

export const escrowSurface: SurfaceFactory = (state) => {
  const ledger = new EscrowLedger(accountsOf(state));
  const seeded = reservationsOf(state);
  for (const r of seeded) ledger.reservations.set(r.reservation_id, r);
  // The ledger numbers new ids res_0001, res_0002, ...: start past any seeded id of that form.
  const highest = Math.max(0, ...seeded.map((r) => /^res_([0-9a-z]{4})$/.exec(r.reservation_id)).map((m) => (m === null ? 0 : parseInt(m[1]!, 36))));
  for (let i = 0; i < highest; i++) ledger.nextId("seed");
  const effects: SurfaceEffect[] = [];
  const base = escrowHandlers(ledger) as unknown as Record<string, LooseHandler>;
  const handlers: Record<string, LooseHandler> = {};
  for (const [tool, handler] of Object.entries(base)) {
    handlers[tool] = async (args: JsonObject, ctx: InvokeContext) => {
      const before = ledger.effects.length;
      const result = await handler(args, ctx);
      for (let i = before; i < ledger.effects.length; i++) effects.push({ tool, operation_id: ctx.operation_id, args });
      return result;
    };
  }
  const instance: SurfaceInstance = {
    handlers,
    reconcilers: escrowReconcilers(ledger) as unknown as Record<string, LooseReconciler>,
    effects: () => effects,
  };
  return instance;
};
