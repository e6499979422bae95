/**
 * The done-when test, on both stores: real traffic through the runtime is logged;
 * the policy is changed (Rego and data); `toolgate replay` reports exactly the
 * decisions the change flips (and the non-flip changes, the not replayable and the
 * unchanged apart), exits 1 on flips; `toolgate explain` reproduces a logged
 * denial; `toolgate log` lists and filters the decisions.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleBytes } from "../../codegen/compiler/bundle.js";
import { compilePolicy } from "../../codegen/compiler/index.js";
import type { ReplayReport } from "../../src/runtime/replay.js";
import type { DecisionLogRecord } from "../../src/store/store.js";
import { alice, approvedWrite, changedData, ENTRYPOINT, gate, loadGeneratedPolicy, reserve, victor } from "./harness.js";
import { runCli } from "../helpers/cli.js";
import { describeEachStore } from "../helpers/stores.js";
import type { Store } from "../../src/store/store.js";


// The candidate: list_transactions is closed (a Rego change), viewers lose reads and
// reserve_funds gets a 1000 limit (data changes).
const candidateRego = (): string => {
  const src = readFileSync("policies/authz.rego", "utf8");
  const anchor = '} else := allow("read_allowed") if {';
  if (!src.includes(anchor)) throw new Error("policies/authz.rego changed: update the candidate");
  return src.replace(anchor, '} else := deny("transactions_closed") if {\n\tinput.tool == "list_transactions"\n' + anchor);
};
const candidateData = () =>
  changedData((c) => {
    (c["roles"] as Record<string, unknown>)["viewer"] = { effects: [] };
    (c["limits"] as Record<string, unknown>)["reserve_funds"] = { amount: { max: 1000 } };
  });

let dir: string;
let candidateBundle: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolgate-replay-"));
  const compiled = compilePolicy({ modules: [{ file: "candidate/authz.rego", source: candidateRego() }], entrypoints: [ENTRYPOINT], optimize: false });
  if (compiled.wasm === null) throw new Error(JSON.stringify(compiled.errors));
  candidateBundle = join(dir, "candidate.tar.gz");
  writeFileSync(candidateBundle, bundleBytes({ wasm: compiled.wasm, data: candidateData(), entrypoints: [ENTRYPOINT] }));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeEachStore("toolgate log / replay / explain on recorded traffic", (stores) => {
  let store: Store;
  let args: string[];
  /** Decision ids by what the traffic was, to check the report against. */
  const ids: Record<string, string[]> = {};
  let log: DecisionLogRecord[] = [];

  beforeAll(async () => {
    store = await stores.fresh();
    args = stores.cliArgs();
    const g = gate(store, await loadGeneratedPolicy());
    g.clock.set(Date.now());
    const tag = async (name: string, run: () => Promise<unknown>, entries = 1) => {
      await run();
      const newest = await store.listDecisions({ limit: entries });
      ids[name] = [...(ids[name] ?? []), ...newest.map((d) => d.decision_id)];
    };
    await tag("agent_read", () => g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } }));
    await tag("agent_read", () => g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_bob" } }));
    await tag("viewer_read", () => g.runtime.call(victor, { tool: "get_account", args: { account_id: "acc_alice" } }));
    await tag("viewer_read", () => g.runtime.call(victor, { tool: "get_account", args: { account_id: "acc_bob" } }));
    await tag("transactions", () => g.runtime.call(alice, { tool: "list_transactions", args: { account_id: "acc_alice" } }));
    await tag("small_write", () => approvedWrite(g, alice, reserve(100), "op-small"), 2);
    await tag("big_write", () => approvedWrite(g, alice, reserve(5000), "op-big"), 2);
    await tag("destroy", () => g.runtime.call(alice, { tool: "close_account", args: { account_id: "acc_alice" }, operation_id: "op-close" }));
    await tag("memo_write", () => approvedWrite(g, alice, reserve(50, { memo: "private" }), "op-memo"), 2);
    await tag("unknown", () => g.runtime.call(alice, { tool: "drop_tables", args: {} }));
    await store.flushDecisions();
    log = await store.listDecisions();
  }, 120_000);

  it("the traffic is logged as expected", () => {
    expect(log).toHaveLength(13);
    const byId = new Map(log.map((d) => [d.decision_id, d]));
    expect(ids["viewer_read"]!.map((id) => byId.get(id)?.reason)).toEqual(["read_allowed", "read_allowed"]);
    expect(ids["big_write"]!.map((id) => byId.get(id)?.reason)).toEqual(["approved", "approval_required"]);
    expect(byId.get(ids["destroy"]![0]!)?.reason).toBe("destructive_denied");
  });

  it("replay reports exactly the decisions the change flips, grouped by tool and reason, and exits 1", async () => {
    const r = await runCli(["replay", "--policy", candidateBundle, ...args, "--format", "json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as ReplayReport;
    const flipped = report.changes.filter((c) => c.flip).map((c) => c.decision_id).sort();
    const bigAllowed = ids["big_write"]![0]!;
    const bigAsked = ids["big_write"]![1]!;
    expect(flipped).toEqual([...ids["viewer_read"]!, ...ids["transactions"]!, bigAllowed].sort());
    // A change that is not a flip: approval required -> denied.
    expect(report.changes.filter((c) => !c.flip).map((c) => c.decision_id)).toEqual([bigAsked]);
    expect(report.groups.map((g) => [g.count, g.tool, `${g.before.decision} ${g.before.reason}`, `${g.after.decision} ${g.after.reason}`, g.flip])).toEqual([
      [2, "get_account", "allow read_allowed", "deny role_not_permitted", true],
      [1, "list_transactions", "allow read_allowed", "deny transactions_closed", true],
      [1, "reserve_funds", "allow approved", "deny limit_exceeded", true],
      [1, "reserve_funds", "approval_required approval_required", "deny limit_exceeded", false],
    ]);
    expect(report.not_replayable.map((n) => n.decision_id).sort()).toEqual([...ids["memo_write"]!].sort());
    expect(report.not_replayable[0]!.erased).toEqual(["/input/args/memo"]);
    expect(report.not_evaluated).toBe(1);
    expect(report.total).toBe(13);
    expect(report.replayed).toBe(10);
    expect(report.unchanged).toBe(5);
  });

  it("replay prints the report grouped with counts; --fail-on chooses what fails; filters narrow it", async () => {
    const pretty = await runCli(["replay", "--policy", candidateBundle, ...args]);
    expect(pretty.code).toBe(1);
    expect(pretty.stdout).toMatch(/replayed 10: unchanged 5, changed 5 \(flips allow <-> deny: 4\); not replayable 2; answered before the policy 1/);
    expect(pretty.stdout).toMatch(/2\s+get_account\s+allow read_allowed\s+->\s+deny role_not_permitted\s+FLIP/);
    expect(pretty.stdout).toMatch(/not replayable.*\n.*reserve_funds\s+erased \/input\/args\/memo/);
    expect(pretty.stdout).toContain("FAIL: 4 decisions would flip (--fail-on flips)");
    process.stdout.write(`\n--- replay report (${stores.name}) ---\n${pretty.stdout}\n`);
    expect((await runCli(["replay", "--policy", candidateBundle, ...args, "--fail-on", "never"])).code).toBe(0);
    const onlyWrites = await runCli(["replay", "--policy", candidateBundle, ...args, "--tool", "close_account", "--fail-on", "changes"]);
    expect(onlyWrites.code).toBe(0);
    expect(onlyWrites.stdout).toContain("ok: no decision would change");
    // The enforced policy itself changes nothing.
    const same = await runCli(["replay", "--policy", "generated/policy.wasm", ...args, "--fail-on", "changes"]);
    expect(same.stdout).toContain("changed 0");
    expect(same.code).toBe(0);
  });

  it("explain reproduces a logged denial with the rule table, and checks the policy version", async () => {
    const id = ids["destroy"]![0]!;
    const r = await runCli(["explain", id, ...args]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`decision ${id}`);
    expect(r.stdout).toContain("is the version it was made under");
    expect(r.stdout).toContain("reproduced yes");
    expect(r.stdout).toMatch(/\* data\.toolgate\.authz\.decision\s+complete\s+policies\/authz\.rego:[\d,]+\s+\{"allow":false,"reason":"destructive_denied","requires_approval":false\}  <- else #2 \(policies\/authz\.rego:\d+\)/);
    const json = JSON.parse((await runCli(["explain", id, ...args, "--format", "json"])).stdout) as { reproduced: boolean; policy_on_disk: { same_version: boolean } };
    expect(json).toMatchObject({ reproduced: true, policy_on_disk: { same_version: true } });
  }, 120_000);

  it("explain under changed data says the version differs; unknown ids and pre-policy answers are clear errors", async () => {
    const other = join(dir, `data-${stores.name}.json`);
    writeFileSync(other, JSON.stringify(candidateData()));
    const viewer = await runCli(["explain", ids["viewer_read"]![0]!, ...args, "--data", other]);
    expect(viewer.stdout).toContain("differs from the logged version");
    expect(viewer.stdout).toContain("reproduced NO");
    expect(viewer.code).toBe(1);
    const missing = await runCli(["explain", "no-such-id", ...args]);
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.stderr).toContain('no decision "no-such-id"');
    const unknown = await runCli(["explain", ids["unknown"]![0]!, ...args]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("answered before the policy was asked (unknown_tool)");
  }, 120_000);

  it("log lists decisions newest first, filters them, and prints OPA events with --format json", async () => {
    const table = await runCli(["log", ...args]);
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^TIME\s+DECISION_ID\s+TENANT\s+TOOL\s+DECISION\s+REASON\s+OUTCOME\s+POLICY$/);
    expect(table.stdout.trimEnd().split("\n")).toHaveLength(14);
    const denied = JSON.parse((await runCli(["log", ...args, "--reason", "destructive_denied", "--format", "json"])).stdout) as { decision_id: string; path: string; input: unknown }[];
    expect(denied.map((e) => e.decision_id)).toEqual(ids["destroy"]);
    expect(denied[0]).toMatchObject({ path: ENTRYPOINT, input: { tool: "close_account" }, bundles: { toolgate: { revision: expect.stringMatching(/^sha256:/) } } });
    const viewer = JSON.parse((await runCli(["log", ...args, "--tool", "get_account", "--tenant", "t_acme", "--since", "1h", "--format", "json"])).stdout) as unknown[];
    expect(viewer).toHaveLength(4);
    expect(JSON.parse((await runCli(["log", ...args, "--since", "2999-01-01T00:00:00Z", "--format", "json"])).stdout)).toEqual([]);
    expect((await runCli(["log", ...args, "--since", "yesterday-ish"])).code).toBe(2);
  });
}, { sqlite: "file" });

describe("log / replay / explain usage errors", () => {
  it("no store is a usage error naming both ways to give one; a missing --db file is located", async () => {
    const env = process.env["TOOLGATE_PG_URL"];
    delete process.env["TOOLGATE_PG_URL"];
    try {
      const r = await runCli(["log"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("pass --db FILE (SQLite) or --url URL / set TOOLGATE_PG_URL");
    } finally {
      if (env !== undefined) process.env["TOOLGATE_PG_URL"] = env;
    }
    const missing = await runCli(["log", "--db", join(dir, "nope.db")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.db:1:1 file_not_found/);
    const noPolicy = await runCli(["replay", "--policy", join(dir, "nope.wasm"), "--db", join(dir, "nope.db")]);
    expect(noPolicy.code).toBe(1);
    expect(noPolicy.stderr).toMatch(/nope\.wasm:1:1 file_not_found/);
    const broken = join(dir, "broken.wasm");
    writeFileSync(broken, "not wasm");
    const bad = await runCli(["replay", "--policy", broken, "--db", join(dir, "nope.db")]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/broken\.wasm:1:1 policy_load_error/);
    expect((await runCli(["replay", "--policy", broken, "--fail-on", "sometimes"])).code).toBe(2);
  });
});
