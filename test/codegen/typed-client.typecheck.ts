/**
 * Compile-time proof of the generated typed client (checked by `npm run typecheck` and by
 * test/codegen/typed-client.test.ts): arguments are checked against the tool's generated input
 * type, and a success envelope's value has the tool's output type. Never run, only compiled.
 */
import { createGate } from "../../generated/index.js";
import type { GetAccountOutput, ReserveFundsOutput } from "../../generated/index.js";
import type { Runtime, TrustedContext } from "../../src/index.js";

export async function typedClientProof(runtime: Runtime, ctx: TrustedContext): Promise<void> {
  const gate = createGate(runtime);
  const args = { account_id: "acc_alice", amount: 100, currency: "EUR", recipient: "acc_bob" } as const;

  const reserved = await gate.tools.reserve_funds(ctx, args, { operation_id: "op-1" });
  if (reserved.outcome === "success") {
    const value: ReserveFundsOutput = reserved.value;
    const state: "reserved" = reserved.value.state;
    // @ts-expect-error the success value is the tool's output type, which has no `amount`
    void reserved.value.amount;
    void [value, state];
  }

  // @ts-expect-error `amout` is not a field of reserve_funds' input
  await gate.tools.reserve_funds(ctx, { account_id: "acc_alice", amout: 100, currency: "EUR", recipient: "acc_bob" });
  // @ts-expect-error `currency` must be one of the declared enum values
  await gate.tools.reserve_funds(ctx, { ...args, currency: "JPY" });
  // @ts-expect-error `amount` is an integer, not a string
  await gate.tools.reserve_funds(ctx, { ...args, amount: "100" });
  // @ts-expect-error `recipient` is required
  await gate.tools.reserve_funds(ctx, { account_id: "acc_alice", amount: 100, currency: "EUR" });
  // @ts-expect-error there is no tool of that name
  await gate.tools.reserve_fund(ctx, args);

  const account = await gate.tools.get_account(ctx, { account_id: "acc_alice" });
  if (account.outcome === "success") {
    const balance: number = account.value.balance;
    const typed: GetAccountOutput = account.value;
    void [balance, typed];
  } else if (account.outcome === "terminal_failure") {
    const reason: string = account.reason;
    void reason;
  }

  // The runtime the client was made over stays reachable, with its own type.
  await gate.runtime.approvals.list({ tenant: ctx.tenant, status: "pending", limit: 10 });
}
