/** Handler overrides shared by the adapter tests. */
import type { ToolHandlers } from "../../generated/index.js";

/** acc_bob's ledger shard is down: reading it is a retryable failure (ledger_unavailable, retry after 2 s). */
export const flakyLedger = (base: ToolHandlers): Partial<ToolHandlers> => ({
  get_account: async (args, ctx) =>
    args.account_id === "acc_bob" ? { ok: false, failure: "ledger_unavailable", message: "shard b is down" } : base.get_account(args, ctx),
});
