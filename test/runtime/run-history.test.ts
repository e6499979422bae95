/**
 * Run history (tools.yaml `run_history: true`): input.run holds the earlier calls of the same
 * run, from the trusted context's run id, on every store. The exfiltration guard: an
 * external_write after a read of a sensitive tool in the same run needs approval.
 */
import { beforeEach, expect, it } from "vitest";
import { manifest } from "../../generated/index.js";
import type { Manifest } from "../../src/manifest.js";
import type { PolicyDecision, PolicyEngine, PolicyInput } from "../../src/policy/engine.js";
import { maxRunHistory } from "../../src/runtime/run-history.js";
import type { Store } from "../../src/store/store.js";
import { alice, makeGate } from "./harness.js";
import { describeEachStore } from "../helpers/stores.js";

/** get_account reads a sensitive record; send_notification (external_write) sees the run. */
const m: Manifest = {
  ...manifest,
  tools: {
    ...manifest.tools,
    get_account: { ...manifest.tools["get_account"]!, sensitive: ["account_id"] },
    send_notification: { ...manifest.tools["send_notification"]!, run_history: true },
  },
};

/** The exfiltration guard, as a policy would write it; every other call is allowed. */
function exfiltrationGuard(seen: PolicyInput[]): PolicyEngine {
  return {
    version: "test-exfiltration-guard",
    async evaluate(input): Promise<PolicyDecision> {
      seen.push(input);
      const readSensitive = (input.run ?? []).some((e) => e.effect === "read" && e.sensitive && e.outcome === "success");
      if (input.effect === "external_write" && readSensitive && input.approval === null) return { allow: false, reason: "external_write_after_sensitive_read", requires_approval: true };
      return { allow: true, reason: "allowed", requires_approval: false };
    },
  };
}

const notify = { tool: "send_notification", args: { account_id: "acc_bob", channel: "email", message: "hello" } } as const;

describeEachStore("run history", (stores) => {
  let store: Store;
  beforeEach(async () => {
    store = await stores.fresh();
  });

  it("an external_write after a read of a sensitive tool in the same run requires approval", async () => {
    const seen: PolicyInput[] = [];
    const gate = makeGate({ policy: exfiltrationGuard(seen), store, manifest: m });
    expect(await gate.runtime.call(alice, { ...notify, operation_id: "n-1" })).toMatchObject({ outcome: "success" });
    expect(await gate.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } })).toMatchObject({ outcome: "success" });
    expect(await gate.runtime.call(alice, { ...notify, operation_id: "n-2" })).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
    // Another run of the same user has read nothing sensitive.
    expect(await gate.runtime.call({ ...alice, run_id: "run_2" }, { ...notify, operation_id: "n-3" })).toMatchObject({ outcome: "success" });
    const run = seen.find((i) => i.operation_id === "n-2")?.run ?? [];
    expect(run.map((e) => [e.tool, e.effect, e.outcome, e.sensitive])).toEqual([
      ["send_notification", "external_write", "success", false],
      ["get_account", "read", "success", true],
    ]);
    expect(run.every((e) => typeof e.at_ms === "number")).toBe(true);
  });

  it("input.run is the run's latest calls, oldest first, bounded", async () => {
    const seen: PolicyInput[] = [];
    const gate = makeGate({ policy: exfiltrationGuard(seen), store, manifest: m });
    for (let i = 0; i < maxRunHistory + 5; i++) await gate.runtime.call(alice, { tool: "list_transactions", args: { account_id: "acc_alice" } });
    await gate.runtime.call(alice, { ...notify, operation_id: "n-last" });
    const run = seen.at(-1)?.run ?? [];
    expect(run).toHaveLength(maxRunHistory);
    expect(run.every((e) => e.tool === "list_transactions")).toBe(true);
    expect(run.map((e) => e.at_ms)).toEqual([...run.map((e) => e.at_ms)].sort((a, b) => a - b));
  });

  it("a tool without run_history gets no input.run", async () => {
    const seen: PolicyInput[] = [];
    const gate = makeGate({ policy: exfiltrationGuard(seen), store, manifest: m });
    await gate.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    expect(seen.at(-1)?.run).toBeUndefined();
  });
});
