/**
 * `toolgate replay` on calls with limits: the candidate is evaluated on the figures recorded in
 * the logged input (what the policy saw then), not on the key's figures today, and the report
 * shows them under the changed decisions. On every store.
 */
import { beforeEach, expect, it } from "vitest";
import { manifest } from "../../generated/index.js";
import { formatReplay } from "../../src/cli/replay-format.js";
import type { LimitSpec, Manifest } from "../../src/manifest.js";
import type { PolicyEngine, PolicyInput } from "../../src/policy/engine.js";
import { replayDecisions } from "../../src/runtime/replay.js";
import type { Store } from "../../src/store/store.js";
import { alice, makeGate, reserveArgs } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const spec: LimitSpec = { name: "reserved_per_account", per: ["account_id"], window_ms: 86_400_000, sum: "amount", max_sum: null, max_count: null, tools: ["reserve_funds"] };
const limited: Manifest = {
  ...manifest,
  tools: { ...manifest.tools, reserve_funds: { ...manifest.tools["reserve_funds"]!, limits: [spec.name] } },
  limits: { [spec.name]: spec },
};
const allowAll: PolicyEngine = { version: "allow-all", evaluate: async () => ({ allow: true, reason: "allowed", requires_approval: false }) };

describeEachStore("replay of calls with limits", (stores) => {
  let store: Store;
  beforeEach(async () => {
    store = await stores.fresh();
  });

  it("replays each decision on the limit figures recorded with it, not today's, and shows them", async () => {
    const gate = makeGate({ policy: allowAll, store, manifest: limited });
    for (let i = 0; i < 3; i++) {
      expect((await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(1_000), operation_id: `op-${i}` })).outcome).toBe("success");
    }
    const records = (await store.listDecisions({ tool: "reserve_funds" })).filter((r) => r.input !== null);
    expect(records).toHaveLength(3);
    // Today the key's sum is 3,000 for every one of them; the candidate asks above 1,500 of it.
    const seen: PolicyInput[] = [];
    const candidate: PolicyEngine = {
      version: "candidate",
      async evaluate(input) {
        seen.push(input);
        const sum = input.limits?.[spec.name]?.sum ?? 0;
        return sum > 1_500 ? { allow: false, reason: "above_1500_today", requires_approval: true } : { allow: true, reason: "allowed", requires_approval: false };
      },
    };
    const report = await replayDecisions(records, candidate);
    expect(seen.map((i) => i.limits?.[spec.name]?.sum).sort()).toEqual([0, 1_000, 2_000]);
    expect(report.changes).toHaveLength(1);
    const changed = records.find((r) => r.decision_id === report.changes[0]!.decision_id)!;
    expect(changed.input?.["limits"]).toEqual({ [spec.name]: { count: 2, sum: 2_000 } });
    const text = formatReplay(report, { candidate: "candidate", filters: "" }, "flips", new Map(records.map((r) => [r.decision_id, r.input])));
    expect(text).toContain(`recorded with ${changed.decision_id} (replayed on these, not today's):`);
    expect(text).toContain(`limits     ${spec.name}: count 2, sum 2000`);
  });
});
