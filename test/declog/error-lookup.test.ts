/**
 * The operator's side of a thrown handler error, on both stores: the model got a fixed text with
 * an error id; `toolgate log --error <id>` and `toolgate explain <id>` find the call's decision by
 * that id and show the error's message and stack, with the sensitive argument's value erased.
 */
import { beforeAll, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import type { ReserveFundsInput } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers } from "../../src/demo/escrow.js";
import { createRuntime } from "../../src/runtime/index.js";
import { manualClock } from "../../src/testing/index.js";
import { alice, bob, loadGeneratedPolicy, reserve } from "./harness.js";
import { runCli } from "../helpers/cli.js";
import { describeEachStore } from "../helpers/stores.js";
import type { Store } from "../../src/store/store.js";

const memo = "salary advance for J. Roe";
const secret = "sk_live_51Hx9";

describeEachStore("finding a thrown error by its id", (stores) => {
  let store: Store;
  let storeArgs: string[];
  let errorId = "";
  let modelSaw = "";

  beforeAll(async () => {
    store = await stores.fresh();
    storeArgs = stores.cliArgs();
    const runtime = createRuntime({
      manifest,
      validators,
      handlers: {
        ...escrowHandlers(new EscrowLedger()),
        reserve_funds: async (args: ReserveFundsInput) => {
          throw new Error(`ledger 502 from https://ledger.internal/holds?key=${secret} for memo ${args.memo ?? ""}`);
        },
      },
      policy: await loadGeneratedPolicy(),
      store,
      clock: manualClock(Date.now()),
      onError: () => undefined,
    });
    const args = reserve(700, { memo });
    const ask = await runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-err" });
    if (ask.outcome !== "terminal_failure" || ask.approval_id === undefined) throw new Error(`expected approval_required: ${JSON.stringify(ask)}`);
    const d = await runtime.approvals.decide(ask.approval_id, { decision: "approve" }, bob);
    if (!d.ok) throw new Error(d.message);
    const env = await runtime.call(alice, { tool: "reserve_funds", args, operation_id: "op-err", approval_id: ask.approval_id });
    modelSaw = JSON.stringify(env);
    errorId = /\(error (e_[0-9a-f]{32})\)/.exec(modelSaw)?.[1] ?? "";
    await store.flushDecisions();
  }, 60_000);

  it("the model saw only the tool, the error id and that the outcome is unknown", () => {
    expect(errorId).toMatch(/^e_[0-9a-f]{32}$/);
    expect(JSON.parse(modelSaw)).toMatchObject({ outcome: "terminal_failure", reason: "outcome_unknown", operation_id: "op-err" });
    for (const hidden of [secret, "ledger.internal", memo, "502"]) expect(modelSaw).not.toContain(hidden);
  });

  it("toolgate log --error finds the call's decision by the error id, with the message and stack, the sensitive value erased", async () => {
    const r = await runCli(["log", "--error", errorId, ...storeArgs]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("reserve_funds");
    expect(r.stdout).toContain("terminal_failure:outcome_unknown");
    expect(r.stdout).toContain(`error ${errorId}: Error, answered as outcome_unknown (undeclared)`);
    expect(r.stdout).toContain(`message  ledger 502 from https://ledger.internal/holds?key=${secret} for memo [erased:memo]`);
    expect(r.stdout).toContain("erased   values of memo (sensitive arguments)");
    expect(r.stdout).toMatch(/stack {4}Error: ledger 502/);
    expect(r.stdout).not.toContain(memo);
    const json = await runCli(["log", "--error", errorId, ...storeArgs, "--format", "json"]);
    const [event] = JSON.parse(json.stdout) as { operation_id: string; error: { error_id: string; message: string } }[];
    expect(event).toMatchObject({ operation_id: "op-err", error: { error_id: errorId, message: expect.stringContaining(secret) } });
  });

  it("toolgate explain takes the error id as its key and shows the thrown error beside the decision", async () => {
    const r = await runCli(["explain", errorId, ...storeArgs]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("(operation op-err)");
    expect(r.stdout).toContain("handler    threw; the model saw only the error id");
    expect(r.stdout).toContain(`key=${secret} for memo [erased:memo]`);
    expect(r.stdout).toContain("reproduced yes");
    expect(r.stdout).not.toContain(memo);
  });

  it("an id that is not an error id is a usage error, and an unknown one says it is not in the store", async () => {
    const bad = await runCli(["log", "--error", "e_nothex", ...storeArgs]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not an error id");
    const missing = await runCli(["log", "--error", `e_${"0".repeat(32)}`, ...storeArgs]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no decision for error");
  });
}, { sqlite: "file" });
