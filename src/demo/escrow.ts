/**
 * The example domain behind tools.yaml: an in-memory escrow ledger with one handler
 * per tool and reconcilers that look an operation up by its id. Used by `toolgate demo`,
 * the runtime tests and bench:runtime. It deliberately does NOT deduplicate by
 * operation id itself, so a double effect would show in `effects`.
 */
import type { ToolHandlers, ToolReconcilers } from "../../generated/index.js";
import type { InvokeContext } from "../generated-runtime.js";

export interface Account {
  account_id: string;
  balance: number;
  currency: "EUR" | "USD" | "GBP";
  status: "open" | "frozen" | "closed";
}

export interface Reservation {
  reservation_id: string;
  account_id: string;
  amount: number;
  currency: "EUR" | "USD" | "GBP";
  recipient: string;
  state: "reserved" | "released" | "transferred";
  operation_id: string | null;
}

/** One applied side effect, as a downstream system would see it. */
export interface Effect {
  readonly tool: string;
  readonly operation_id: string | null;
  readonly fence_token: number | null;
  readonly resource_id: string;
}

export class EscrowLedger {
  readonly accounts = new Map<string, Account>();
  readonly reservations = new Map<string, Reservation>();
  readonly transfers = new Map<string, { transfer_id: string; reservation_id: string; operation_id: string | null }>();
  readonly notifications: { notification_id: string; account_id: string; message: string }[] = [];
  readonly effects: Effect[] = [];
  #seq = 0;

  constructor(accounts: readonly Account[] = defaultAccounts) {
    for (const a of accounts) this.accounts.set(a.account_id, { ...a });
  }

  nextId(prefix: string): string {
    this.#seq += 1;
    return `${prefix}_${this.#seq.toString(36).padStart(4, "0")}`;
  }

  effect(tool: string, ctx: InvokeContext, resourceId: string): void {
    this.effects.push({ tool, operation_id: ctx.operation_id, fence_token: ctx.fence_token, resource_id: resourceId });
  }

  effectsOf(operationId: string): Effect[] {
    return this.effects.filter((e) => e.operation_id === operationId);
  }

  reservationByOperation(operationId: string | null): Reservation | undefined {
    return [...this.reservations.values()].find((r) => operationId !== null && r.operation_id === operationId);
  }
}

export const defaultAccounts: readonly Account[] = [
  { account_id: "acc_alice", balance: 500_000, currency: "EUR", status: "open" },
  { account_id: "acc_bob", balance: 20_000, currency: "EUR", status: "open" },
];

const observedReservation = (r: Reservation) => ({ reservation_id: r.reservation_id, amount: r.amount, currency: r.currency, state: r.state });

export function escrowHandlers(ledger: EscrowLedger): ToolHandlers {
  return {
    async get_account({ account_id }) {
      const a = ledger.accounts.get(account_id);
      if (a === undefined) return { ok: false, failure: "account_not_found" };
      return { ok: true, value: { account_id: a.account_id, balance: a.balance, currency: a.currency, status: a.status } };
    },
    async list_transactions({ account_id, limit }) {
      if (!ledger.accounts.has(account_id)) return { ok: false, failure: "account_not_found" };
      const transactions = [...ledger.reservations.values()]
        .filter((r) => r.account_id === account_id)
        .reverse()
        .slice(0, limit ?? 20)
        .map((r) => ({ transaction_id: r.reservation_id, amount: r.amount, currency: r.currency, kind: "reserve" as const }));
      return { ok: true, value: { transactions } };
    },
    async get_reservation({ reservation_id }) {
      const r = ledger.reservations.get(reservation_id);
      if (r === undefined) return { ok: false, failure: "reservation_not_found" };
      return { ok: true, value: { reservation_id, amount: r.amount, currency: r.currency, state: r.state } };
    },
    async reserve_funds(args, ctx) {
      const a = ledger.accounts.get(args.account_id);
      if (a === undefined || a.status === "closed") return { ok: false, failure: "insufficient_funds", message: "no such open account" };
      if (a.status === "frozen") return { ok: false, failure: "account_frozen" };
      if (a.balance < args.amount) return { ok: false, failure: "insufficient_funds" };
      const r: Reservation = { reservation_id: ledger.nextId("res"), ...pick(args), state: "reserved", operation_id: ctx.operation_id };
      a.balance -= args.amount;
      ledger.reservations.set(r.reservation_id, r);
      ledger.effect("reserve_funds", ctx, r.reservation_id);
      return { ok: true, value: { reservation_id: r.reservation_id, state: "reserved" }, resource_id: r.reservation_id, observed_state: observedReservation(r) };
    },
    async release_funds({ reservation_id }, ctx) {
      const r = ledger.reservations.get(reservation_id);
      if (r === undefined) return { ok: false, failure: "reservation_not_found" };
      if (r.state === "transferred") return { ok: false, failure: "already_transferred" };
      if (r.state === "reserved") {
        r.state = "released";
        const a = ledger.accounts.get(r.account_id);
        if (a !== undefined) a.balance += r.amount;
        ledger.effect("release_funds", ctx, reservation_id);
      }
      return { ok: true, value: { reservation_id, state: "released" }, resource_id: reservation_id, observed_state: observedReservation(r) };
    },
    async confirm_transfer({ reservation_id, amount, currency }, ctx) {
      const r = ledger.reservations.get(reservation_id);
      if (r === undefined || r.state !== "reserved") return { ok: false, failure: "reservation_not_found" };
      if (r.amount !== amount || r.currency !== currency) return { ok: false, failure: "amount_mismatch" };
      r.state = "transferred";
      const transfer_id = ledger.nextId("trf");
      ledger.transfers.set(transfer_id, { transfer_id, reservation_id, operation_id: ctx.operation_id });
      ledger.effect("confirm_transfer", ctx, transfer_id);
      return { ok: true, value: { transfer_id, state: "settled" }, resource_id: transfer_id, observed_state: observedReservation(r) };
    },
    async send_notification({ account_id, message }, ctx) {
      const notification_id = ledger.nextId("ntf");
      ledger.notifications.push({ notification_id, account_id, message });
      ledger.effect("send_notification", ctx, notification_id);
      return { ok: true, value: { notification_id }, resource_id: notification_id };
    },
    async freeze_account({ account_id }, ctx) {
      const a = ledger.accounts.get(account_id);
      if (a === undefined) return { ok: false, failure: "account_not_found" };
      a.status = "frozen";
      ledger.effect("freeze_account", ctx, account_id);
      return { ok: true, value: { account_id, status: "frozen" }, resource_id: account_id, observed_state: { status: a.status } };
    },
    async close_account({ account_id }, ctx) {
      const a = ledger.accounts.get(account_id);
      if (a === undefined) return { ok: false, failure: "account_not_found" };
      a.status = "closed";
      ledger.effect("close_account", ctx, account_id);
      return { ok: true, value: { account_id, status: "closed" }, resource_id: account_id };
    },
  };
}

const pick = (a: { account_id: string; amount: number; currency: "EUR" | "USD" | "GBP"; recipient: string }) => ({
  account_id: a.account_id,
  amount: a.amount,
  currency: a.currency,
  recipient: a.recipient,
});

/** Reconcilers read the ledger by operation id: the effect either happened (its result) or did not. */
export function escrowReconcilers(ledger: EscrowLedger): ToolReconcilers {
  return {
    async reserve_funds(_args, ctx) {
      const r = ledger.reservationByOperation(ctx.operation_id);
      if (r === undefined) return { ok: "not_applied" };
      return { ok: true, value: { reservation_id: r.reservation_id, state: "reserved" }, resource_id: r.reservation_id, observed_state: observedReservation(r) };
    },
    async confirm_transfer(_args, ctx) {
      const t = [...ledger.transfers.values()].find((x) => x.operation_id === ctx.operation_id);
      if (t === undefined) return { ok: "not_applied" };
      const r = ledger.reservations.get(t.reservation_id);
      return { ok: true, value: { transfer_id: t.transfer_id, state: "settled" }, resource_id: t.transfer_id, ...(r === undefined ? {} : { observed_state: observedReservation(r) }) };
    },
  };
}
