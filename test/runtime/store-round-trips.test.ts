/**
 * What one call costs the store, counted (not timed): an approved write makes at most two
 * durable commits (the claim, made first with authorize's call-state read; the outcome with its
 * decision-log row and the approval's consumption) and, on PostgreSQL, at most two round trips;
 * an allowed read makes no durable commit of its own (its decision-log row is group-committed).
 */
import { beforeAll, expect, it } from "vitest";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { describeEachStore, type TestStores } from "../helpers/stores.js";
import { alice, loadShippedPolicy, makeGate } from "./harness.js";
import { countedApprovedWrite } from "./counted-write.js";
import { countingPgStore, countingSqliteStore } from "./statement-count.js";
import type { CountingStore } from "./statement-count.js";

/** A store that counts its commits and statements, on an empty database of the suite's store. */
async function countingStore(stores: TestStores): Promise<CountingStore> {
  if (stores.name === "sqlite") return countingSqliteStore();
  await stores.fresh();
  const site = stores.site();
  if (site.name !== "postgres") throw new Error("expected a PostgreSQL site");
  return countingPgStore(site.pool);
}

describeEachStore("store round trips", (stores) => {
  let policy: PolicyEngine;
  beforeAll(async () => {
    policy = await loadShippedPolicy();
  });

  it("an approved write makes at most two durable commits (and at most two round trips on PostgreSQL: claim-first, then the outcome)", async () => {
    const c = await countingStore(stores);
    const { env, op, approvalId } = await countedApprovedWrite(c, policy, "op-rt");
    expect(env).toMatchObject({ outcome: "success" });
    expect(c.counts.commits, c.counts.log.join("\n")).toBeLessThanOrEqual(2);
    if (stores.name === "postgres") expect(c.counts.statements, c.counts.log.join("\n")).toBeLessThanOrEqual(2);
    // The approval is consumed by the operation and the decision is logged, in those commits.
    expect(await c.store.getApproval(approvalId)).toMatchObject({ consumed_by: op });
    expect(await c.store.listDecisions({ operation_id: op, limit: 1 })).toMatchObject([{ outcome: "success", decision: "allow" }]);
    await c.store.close();
  });

  it("an allowed read makes no durable commit of its own", async () => {
    const c = await countingStore(stores);
    const g = makeGate({ policy, store: c.store });
    await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    await c.store.flushDecisions();
    c.reset();
    expect(await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } })).toMatchObject({ outcome: "success" });
    expect(c.counts.commits, c.counts.log.join("\n")).toBe(0);
    await c.store.close();
  });
});
