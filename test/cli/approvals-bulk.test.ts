/**
 * `toolgate approvals approve|reject` decides several approvals in one run: by ids, or by a
 * filter that lists its selection and decides only with --yes; the approver rules hold for
 * each approval and the output gives each one's result. On SQLite and PostgreSQL.
 */
import { beforeAll, expect, it } from "vitest";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { manualClock } from "../../src/testing/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";
import { runCli } from "../helpers/cli.js";

let policy: PolicyEngine;
beforeAll(async () => {
  policy = await loadShippedPolicy();
});

const bob = ["--as", "bob", "--tenant", "t_acme", "--role", "approver"];

describeEachStore("toolgate approvals approve|reject in bulk", (stores) => {
  let gate: Gate;
  let flags: string[];
  let n = 0;
  beforeAll(async () => {
    gate = makeGate({ policy, store: await stores.fresh(), clock: manualClock(Date.now()) });
    flags = stores.cliArgs();
  });

  const pending = async (tool = "reserve_funds", ctx = alice): Promise<string> => {
    n += 1;
    const args = tool === "reserve_funds" ? reserveArgs(100 + n) : { account_id: "acc_alice", channel: "email", message: `hello ${n}` };
    const env = await gate.runtime.call(ctx, { tool, args, operation_id: `op-bulk-${stores.name}-${n}` });
    if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
    return env.approval_id;
  };
  const status = async (id: string): Promise<string | undefined> => (await gate.runtime.approvals.get(id))?.status;

  it("approve with several ids decides each and prints each approval's result", async () => {
    const ids = [await pending(), await pending(), await pending()];
    const r = await runCli(["approvals", "approve", ...ids, ...flags, ...bob, "--reason", "batch"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    for (const id of ids) {
      expect(r.stdout).toContain(`${id}: approved by bob`);
      expect(await status(id)).toBe("approved");
    }
    expect(r.stdout).toContain("3 approved, 0 refused");
  });

  it("the approver rules apply to each approval of a batch: the requester's own call and an unknown id are refused, the rest decided, exit 1", async () => {
    const ok = await pending();
    const own = await pending("reserve_funds", { ...alice, user: "bob" }); // requested by bob: bob cannot approve it
    const r = await runCli(["approvals", "approve", ok, own, "apr_nope", ...flags, ...bob, "--format", "json"]);
    expect(r.code).toBe(1);
    const { results } = JSON.parse(r.stdout) as { results: { id: string; ok: boolean; why?: string }[] };
    expect(results.map((x) => [x.id, x.ok, x.why ?? null])).toEqual([
      [ok, true, null],
      [own, false, "self_approval"],
      ["apr_nope", false, "not_found"],
    ]);
    expect(await status(ok)).toBe("approved");
    expect(await status(own)).toBe("pending");
    expect(r.stderr).toContain("self_approval");
  });

  it("a filter lists what it selects and decides nothing without --yes; with --yes it decides exactly that selection", async () => {
    const notifications = [await pending("send_notification"), await pending("send_notification")];
    const reserve = await pending();
    const dry = await runCli(["approvals", "approve", "--tool", "send_notification", ...flags, ...bob]);
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain("confirmation_required: nothing was decided");
    expect(dry.stdout).toContain("2 pending, tool send_notification approval(s) of tenant t_acme to approve");
    for (const id of notifications) expect(dry.stdout).toContain(id);
    expect(dry.stdout).not.toContain(reserve);
    for (const id of [...notifications, reserve]) expect(await status(id)).toBe("pending");

    const yes = await runCli(["approvals", "approve", "--tool", "send_notification", "--yes", ...flags, ...bob]);
    expect(yes.code, yes.stderr).toBe(0);
    for (const id of notifications) {
      expect(yes.stdout).toContain(`${id}: approved by bob`);
      expect(await status(id)).toBe("approved");
    }
    expect(await status(reserve)).toBe("pending");
  });

  it("--older-than selects only approvals created before the cutoff; ids and a filter together are a usage error", async () => {
    const fresh = await pending();
    const r = await runCli(["approvals", "reject", "--older-than", "1h", "--yes", ...flags, ...bob]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("0 pending, older than 1h approval(s)");
    expect(await status(fresh)).toBe("pending");
    const both = await runCli(["approvals", "reject", fresh, "--tool", "reserve_funds", ...flags, ...bob]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("not both");
    const none = await runCli(["approvals", "approve", ...flags, ...bob]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("name the approvals to decide");
  });

  it("--all --yes decides every pending approval of the approver's tenant and none of another tenant's", async () => {
    const mine = [await pending(), await pending("send_notification")];
    const theirs = await pending("reserve_funds", { ...alice, tenant: "t_other" });
    const r = await runCli(["approvals", "reject", "--all", "--yes", ...flags, ...bob, "--reason", "stale requests"]);
    expect(r.code, r.stderr).toBe(0);
    for (const id of mine) expect(await status(id)).toBe("rejected");
    expect(await status(theirs)).toBe("pending");
    const left = await runCli(["approvals", "list", ...flags, ...bob, "--format", "json"]);
    expect((JSON.parse(left.stdout) as { approvals: unknown[] }).approvals).toEqual([]);
  });
}, { sqlite: "file" });
