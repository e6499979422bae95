/**
 * One handler per tool in tools.yaml, typed by the generated code: arguments arrive
 * validated, and each handler answers with its output or one of its declared failures.
 * Replace the in-memory orders with calls to your own systems.
 */
import type { ToolHandlers, ToolReconcilers } from "../generated/index.js";

interface Order {
  status: "paid" | "refunded" | "cancelled";
  total_cents: number;
}

const orders = new Map<string, Order>([["ord_1001", { status: "paid", total_cents: 4200 }]]);
const refunds = new Map<string, { refund_id: string; amount_cents: number }>();

export const handlers: ToolHandlers = {
  async get_order({ order_id }) {
    const order = orders.get(order_id);
    if (order === undefined) return { ok: false, failure: "order_not_found" };
    return { ok: true, value: { order_id, ...order } };
  },

  async refund_order({ order_id, amount_cents }, ctx) {
    const order = orders.get(order_id);
    if (order === undefined) return { ok: false, failure: "order_not_found" };
    // The operation id is stable across retries: a real payment provider deduplicates on it.
    const key = ctx.operation_id ?? order_id;
    const refund = refunds.get(key) ?? { refund_id: `ref_${refunds.size + 1}`, amount_cents };
    refunds.set(key, refund);
    order.status = "refunded";
    return { ok: true, value: refund, resource_id: refund.refund_id };
  },

  async delete_customer() {
    // Never reached: the shipped policy denies every destructive call.
    return { ok: true, value: { deleted: true } };
  },
};

/**
 * Reconcilers answer "did this effect happen?" for a call whose outcome is unknown (the
 * process died or the answer was lost after the handler started). The refunds are keyed by
 * the operation id, as a payment provider deduplicates on it, so a lookup by that id is the
 * truth: found, the refund landed and is the outcome; not found, it never happened
 * (`not_applied`) and the gate may run the call again under the same operation id, which the
 * provider would deduplicate anyway. Without a reconciler, such a call ends terminal_failure
 * `timeout` once its lease passes.
 */
export const reconcilers: ToolReconcilers = {
  async refund_order(_args, ctx) {
    const refund = ctx.operation_id === null ? undefined : refunds.get(ctx.operation_id);
    if (refund === undefined) return { ok: "not_applied" };
    return { ok: true, value: refund, resource_id: refund.refund_id };
  },
};
