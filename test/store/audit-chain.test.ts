/**
 * The tamper-evident chain on both stores: decision-log entries and approval decisions of a
 * tenant link to the previous record of that tenant; `verifyChain` (and `toolgate log verify`)
 * names the first broken link after a row is deleted, edited or re-ordered by SQL; an export
 * verifies offline; concurrent writers on PostgreSQL leave valid chains without one tenant
 * waiting for another.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { exportLines, parseExport, verifyChain } from "../../src/store/chain/index.js";
import type { ChainVerdict } from "../../src/store/chain/index.js";
import type { ApprovalEvent, DecisionLogEntry, NewApproval, Store } from "../../src/store/store.js";
import { readChain } from "./audit-chain-stores.js";
import { runCli } from "../helpers/cli.js";
import { describeEachStore } from "../helpers/stores.js";

const T0 = 1_800_000_000_000;

const entry = (tenant: string, n: number, over: Partial<DecisionLogEntry> = {}): DecisionLogEntry => ({
  decision_id: `${tenant}-d${n}`,
  at_ms: T0 + n,
  tenant,
  run_id: "run-1",
  user: "alice",
  tool: "reserve_funds",
  operation_id: `op-${n}`,
  fingerprint: "f".repeat(64),
  decision: "allow",
  reason: "read_allowed",
  policy_version: "pv-1",
  outcome: "success",
  outcome_reason: null,
  path: "toolgate/authz/decision",
  input: { tool: "reserve_funds", args: { amount: n, note: "é ✓", nested: { z: 1, a: [1.5, null] } } },
  result: { allow: true, reason: "read_allowed", requires_approval: false },
  erased: [],
  eval_ns: 1000 + n,
  shadow: null,
  expires_at_ms: null,
  ...over,
});

const approval = (tenant: string, id: string): NewApproval => ({
  id,
  tenant,
  run_id: "run-1",
  requested_by: "alice",
  tool: "reserve_funds",
  args: { amount: 500 },
  preview: { amount: 500 },
  fingerprint: "e".repeat(64),
  args_hash: "h".repeat(64),
  operation_id: `op-${id}`,
  created_at_ms: T0,
  expires_at_ms: T0 + 3_600_000,
  policy_version: "pv-1",
  policy_code_version: "code-1",
  policy_data_version: "data-1",
});

const decide = (id: string, decision: ApprovalEvent["decision"], approver = "bob"): ApprovalEvent => ({
  approval_id: id,
  decision,
  approver,
  approver_roles: ["treasury"],
  reason: "ok",
  edited_args: null,
  decided_at_ms: T0 + 50,
  policy_version: "pv-1",
  policy_code_version: "code-1",
  policy_data_version: "data-1",
});

/** Tenant t1: d1, d2, an approval decision (approve then revoke), d3, d4; tenant t2: d1, d2. */
async function writeHistory(store: Store): Promise<void> {
  await store.appendDecision(entry("t1", 1));
  await store.appendDecision(entry("t2", 1));
  await store.appendDecision(entry("t1", 2));
  await store.flushDecisions();
  await store.createApproval(approval("t1", "apr-1"));
  expect((await store.decideApproval(decide("apr-1", "approve"))).ok).toBe(true);
  expect((await store.decideApproval(decide("apr-1", "revoke", "carol"))).ok).toBe(true);
  await store.appendDecision(
    entry("t1", 3, {
      outcome: "retryable_failure",
      outcome_reason: "handler_error",
      error: { error_id: "e_1", treated_as: "retryable", matched: "transient", name: "Error", code: "ECONNRESET", message: "reset", stack: null, erased: [] },
    }),
  );
  await store.appendDecision(entry("t2", 2));
  await store.appendDecision(entry("t1", 4));
  await store.flushDecisions();
  // Tenant t2's approval decisions: an edit (with edited arguments) and a reject.
  await store.createApproval(approval("t2", "apr-2"));
  await store.createApproval(approval("t2", "apr-3"));
  const edited = { amount: 250, memo: "split ✓", lines: [{ z: 1, a: 2.5 }, null], big: 12345678901234 };
  expect((await store.decideApproval({ ...decide("apr-2", "edit"), edited_args: edited })).ok).toBe(true);
  expect((await store.decideApproval(decide("apr-3", "reject"))).ok).toBe(true);
}

const tenantOf = (v: ChainVerdict, tenant: string) => {
  const t = v.tenants.find((x) => x.tenant === tenant);
  if (t === undefined) throw new Error(`no verdict for ${tenant}`);
  return t;
};

describeEachStore("audit chain", (stores) => {
  it("an intact log verifies: each tenant's decisions and approval decisions form one unbroken chain", async () => {
    const store = await stores.fresh();
    await writeHistory(store);
    const snap = await readChain(store);
    const t1 = snap.records.filter((r) => r.tenant === "t1").sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    expect(t1.map((r) => r.id)).toEqual(["t1-d1", "t1-d2", expect.stringMatching(/^apr-1#/), expect.stringMatching(/^apr-1#/), "t1-d3", "t1-d4"]);
    expect(t1.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(t1[3]?.content["decision"]).toBe("revoke");
    const verdict = verifyChain(snap);
    expect(verdict.ok).toBe(true);
    expect(tenantOf(verdict, "t1")).toMatchObject({ records: 6, unchained: 0, broken: null, head: { seq: 6 } });
    expect(tenantOf(verdict, "t2")).toMatchObject({ records: 4, broken: null, head: { seq: 4 } });
    const res = await runCli(["log", "verify", ...stores.cliArgs()]);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("tenant t1: intact, 6 records");
  });

  it("entries carried by recorded outcomes (alone, or with the queue) are linked in the order of decisions", async () => {
    const store = await stores.fresh();
    const outcome = async (n: number, tenant: string): Promise<void> => {
      const claim = await store.claimOperation({
        tenant, operation_id: `op-${n}`, tool: "reserve_funds", fingerprint: "f".repeat(64), owner: "w", now_ms: T0, lease_ms: 60_000, retention_ms: 3_600_000,
      });
      if (claim.kind !== "claimed") throw new Error(`not claimed: ${claim.kind}`);
      const res = await store.recordOutcome({
        tenant, operation_id: `op-${n}`, fence_token: claim.record.fence_token, status: "final", envelope: { status: "success" }, now_ms: T0 + 1,
        decision: entry(tenant, n),
      });
      expect(res.recorded).toBe(true);
    };
    await outcome(1, "t1");
    await store.appendDecision(entry("t1", 2));
    await store.appendDecision(entry("t2", 3));
    await outcome(4, "t1");
    await outcome(5, "t2");
    const snap = await readChain(store);
    const order = (t: string): string[] => snap.records.filter((r) => r.tenant === t).sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0)).map((r) => r.id);
    expect(order("t1")).toEqual(["t1-d1", "t1-d2", "t1-d4"]);
    expect(order("t2")).toEqual(["t2-d3", "t2-d5"]);
    expect(verifyChain(snap).ok).toBe(true);
  });

  it("a deleted decision-log row is the first broken link: verify names its position and the record after it, and exits 1", async () => {
    const store = await stores.fresh();
    await writeHistory(store);
    await stores.exec("DELETE FROM decision_log WHERE decision_id = 't1-d2'");
    const v = verifyChain(await readChain(store));
    expect(v.ok).toBe(false);
    expect(tenantOf(v, "t1").broken).toMatchObject({ seq: 2, problem: "missing", id: expect.stringMatching(/^apr-1#/) });
    expect(tenantOf(v, "t2").broken).toBeNull();
    const res = await runCli(["log", "verify", "--tenant", "t1", ...stores.cliArgs()]);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain("BROKEN at position 2");
  });

  it("an edited decision-log row is reported as edited, naming that record", async () => {
    const store = await stores.fresh();
    await writeHistory(store);
    await stores.exec("UPDATE decision_log SET reason = 'limit_exceeded', decision = 'deny' WHERE decision_id = 't1-d3'");
    const v = verifyChain(await readChain(store));
    expect(tenantOf(v, "t1").broken).toMatchObject({ seq: 5, problem: "edited", id: "t1-d3", kind: "decision" });
  });

  it("an edited decision inside a JSON column (the logged input) is reported as edited", async () => {
    const store = await stores.fresh();
    await writeHistory(store);
    const set = stores.name === "postgres" ? `input = '{"tool":"reserve_funds","args":{"amount":1}}'::jsonb` : `input = '{"tool":"reserve_funds","args":{"amount":1}}'`;
    await stores.exec(`UPDATE decision_log SET ${set} WHERE decision_id = 't1-d4'`);
    expect(tenantOf(verifyChain(await readChain(store)), "t1").broken).toMatchObject({ seq: 6, problem: "edited", id: "t1-d4" });
  });

  it("a re-ordered row is reported as out of order at the first position that changed", async () => {
    const store = await stores.fresh();
    await writeHistory(store);
    await stores.exec("UPDATE decision_log SET chain_seq = CASE chain_seq WHEN 5 THEN 6 ELSE 5 END WHERE tenant = 't1' AND chain_seq IN (5, 6)");
    const v = verifyChain(await readChain(store));
    expect(tenantOf(v, "t1").broken).toMatchObject({ seq: 5, problem: "out_of_order", id: "t1-d4" });
  });

  it("a record inserted without a link after the chain began is a break, not an unchained record", async () => {
    const store = await stores.fresh();
    await writeHistory(store);
    await stores.exec(
      stores.name === "postgres"
        ? `INSERT INTO decision_log (decision_id, at, tenant, run_id, user_id, tool, decision, outcome)
           VALUES ('forged', now(), 't1', 'run-1', 'alice', 'reserve_funds', 'allow', 'success')`
        : `INSERT INTO decision_log (decision_id, at_ms, tenant, run_id, user_id, tool, decision, outcome)
           VALUES ('forged', ${T0 + 99}, 't1', 'run-1', 'alice', 'reserve_funds', 'allow', 'success')`,
    );
    const v = verifyChain(await readChain(store));
    expect(tenantOf(v, "t1").broken).toMatchObject({ problem: "unlinked", id: "forged" });
    expect(tenantOf(v, "t2").broken).toBeNull();
  });

  it("an edited approval decision (another approver) breaks the chain at that decision", async () => {
    const store = await stores.fresh();
    await writeHistory(store);
    await stores.exec("UPDATE approval_events SET approver = 'mallory' WHERE decision = 'approve'");
    const v = verifyChain(await readChain(store));
    expect(tenantOf(v, "t1").broken).toMatchObject({ seq: 3, problem: "edited", kind: "approval_decision" });
  });

  it("changed edited arguments of an approval decision break the chain at that decision", async () => {
    const store = await stores.fresh();
    await writeHistory(store);
    await stores.exec(`UPDATE approval_events SET edited_args = '{"amount":9999}' WHERE decision = 'edit'`);
    const v = verifyChain(await readChain(store));
    expect(tenantOf(v, "t2").broken).toMatchObject({ seq: 3, problem: "edited", kind: "approval_decision" });
    expect(tenantOf(v, "t1").broken).toBeNull();
  });

  it("deleting the newest records is detected against the stored head", async () => {
    const store = await stores.fresh();
    await writeHistory(store);
    await stores.exec("DELETE FROM decision_log WHERE decision_id = 't1-d4'");
    expect(tenantOf(verifyChain(await readChain(store)), "t1").broken).toMatchObject({ seq: 6, problem: "head_mismatch" });
  });

  it("a chain rewritten from a point (rows and head) passes the store's own check but fails against an anchored export head", async () => {
    const store = await stores.fresh();
    await writeHistory(store);
    const anchor = (await readChain(store, "t1")).heads;
    // The attacker drops the newest record and moves the head back to the record before it.
    await stores.exec("DELETE FROM decision_log WHERE decision_id = 't1-d4'");
    await stores.exec("UPDATE audit_chain_heads SET seq = 5, link = (SELECT link FROM decision_log WHERE decision_id = 't1-d3') WHERE tenant = 't1'");
    const snap = await readChain(store, "t1");
    expect(verifyChain(snap).ok).toBe(true);
    const v = verifyChain(snap, anchor);
    expect(tenantOf(v, "t1").broken).toMatchObject({ seq: 6, problem: "anchor_mismatch" });
    const anchorFile = join(mkdtempSync(join(tmpdir(), "tg-chain-anchor-")), "anchor.jsonl");
    try {
      writeFileSync(anchorFile, `${exportLines({ records: [], pruned: [], heads: anchor }, T0).join("\n")}\n`);
      expect((await runCli(["log", "verify", ...stores.cliArgs()])).code).toBe(0);
      const res = await runCli(["log", "verify", "--anchor", anchorFile, ...stores.cliArgs()]);
      expect(res.code).toBe(1);
      expect(res.stdout).toContain("anchor_mismatch");
    } finally {
      rmSync(anchorFile, { force: true });
    }
  });

  it("entries purged by retention keep their links: the chain still verifies and counts them as pruned", async () => {
    const store = await stores.fresh();
    await store.appendDecision(entry("t1", 1));
    await store.appendDecision(entry("t1", 2, { expires_at_ms: T0 + 10 }));
    await store.appendDecision(entry("t1", 3));
    await store.flushDecisions();
    expect(await store.purgeExpired(T0 + 100)).toBe(1);
    const v = verifyChain(await readChain(store));
    expect(tenantOf(v, "t1")).toMatchObject({ records: 2, pruned: 1, broken: null });
    // Deleting a kept record still breaks it.
    await stores.exec("DELETE FROM decision_log WHERE decision_id = 't1-d3'");
    expect(verifyChain(await readChain(store)).ok).toBe(false);
  });

  it("rows written without the chain (before it existed) are reported as unchained, not as broken", async () => {
    const plain = await stores.fresh({ decisionLog: { chain: false } });
    await plain.appendDecision(entry("t1", 1));
    await plain.flushDecisions();
    const chained = await stores.peer();
    await chained.appendDecision(entry("t1", 2));
    await chained.flushDecisions();
    const v = verifyChain(await readChain(chained));
    expect(tenantOf(v, "t1")).toMatchObject({ records: 1, unchained: 1, broken: null });
  });

  describe("export", () => {
    let dir = "";
    beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "tg-chain-export-"))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("an export verifies offline, without the store; a tampered export fails naming the record", async () => {
      const store = await stores.fresh();
      await writeHistory(store);
      const file = join(dir, `${stores.name}.jsonl`);
      const exported = await runCli(["log", "export", "--out", file, ...stores.cliArgs()]);
      expect(exported.code).toBe(0);
      await store.close();
      const ok = await runCli(["log", "verify", "--file", file]);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain("tenant t1: intact, 6 records");
      expect(ok.stdout).toContain("tenant t2: intact, 4 records");

      const lines = readFileSync(file, "utf8").trimEnd().split("\n");
      const edited = lines.map((l) => (l.includes('"id":"t2-d1"') ? l.replace('"decision":"allow"', '"decision":"deny"') : l));
      expect(edited).not.toEqual(lines);
      const bad = join(dir, `${stores.name}-edited.jsonl`);
      writeFileSync(bad, `${edited.join("\n")}\n`);
      const res = await runCli(["log", "verify", "--file", bad]);
      expect(res.code).toBe(1);
      expect(res.stdout).toContain("tenant t2: BROKEN at position 1 (decision t2-d1): edited");

      const dropped = join(dir, `${stores.name}-dropped.jsonl`);
      writeFileSync(dropped, `${lines.filter((l) => !l.includes('"id":"t1-d2"')).join("\n")}\n`);
      const gone = await runCli(["log", "verify", "--file", dropped]);
      expect(gone.code).toBe(1);
      expect(gone.stdout).toContain("tenant t1: BROKEN at position 2");
    });

    it("an export round-trips through parseExport to the same verdict as the store's chain", async () => {
      const store = await stores.fresh();
      await writeHistory(store);
      const snap = await readChain(store);
      const parsed = parseExport(exportLines(snap, T0).join("\n"));
      expect(verifyChain(parsed)).toEqual(verifyChain(snap));
    });

    it("a malformed export is refused with a located error and exit 1", async () => {
      const file = join(dir, "malformed.jsonl");
      writeFileSync(file, '{"type":"header","format":"toolgate-audit-chain/1"}\n{"type":"record","tenant":"t1"}\n');
      const res = await runCli(["log", "verify", "--file", file]);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/malformed\.jsonl:2:1 chain_export_invalid/);
    });
  });

  if (stores.name === "postgres") {
    describe("concurrent writers", () => {
      afterEach(() => vi.restoreAllMocks());

      it("several pools racing across two tenants (batches mixing both, outcomes, approval decisions) leave valid chains", async () => {
        await stores.fresh();
        const writers = await Promise.all([0, 1, 2, 3].map(() => stores.peer({ decisionLog: { maxBatchRows: 3, maxDelayMs: 0 } })));
        const perWriter = 30;
        await Promise.all(
          writers.map(async (w, k) => {
            for (let n = 0; n < perWriter; n++) {
              const tenant = (n + k) % 2 === 0 ? "ta" : "tb";
              await w.appendDecision(entry(tenant, n, { decision_id: `w${k}-${n}` }));
              if (n % 10 === 0) {
                await w.createApproval(approval(tenant, `apr-${k}-${n}`));
                await w.decideApproval(decide(`apr-${k}-${n}`, "approve"));
              }
            }
            await w.flushDecisions();
          }),
        );
        const v = verifyChain(await readChain(writers[0]!));
        expect(v.ok).toBe(true);
        const total = v.tenants.reduce((s, t) => s + t.records, 0);
        expect(total).toBe(4 * perWriter + 4 * 3);
        expect(v.tenants.map((t) => t.tenant)).toEqual(["ta", "tb"]);
        for (const t of v.tenants) expect(t.head?.seq).toBe(t.records);
      });

      it("a tenant's chain lock does not make another tenant wait", async () => {
        const store = await stores.fresh({ decisionLog: { durability: "sync" } });
        await store.appendDecision(entry("ta", 0));
        // Another connection holds tenant ta's chain (an uncommitted insert).
        const url = process.env["TOOLGATE_PG_URL"] ?? "";
        const holder = new pg.Client({ connectionString: url });
        await holder.connect();
        try {
          const schema = stores.cliArgs()[3]!;
          await holder.query(`SET search_path = ${schema}`);
          await holder.query("BEGIN");
          await holder.query(
            `INSERT INTO decision_log (decision_id, at, tenant, run_id, user_id, tool, decision, outcome, content_hash)
             VALUES ('held', now(), 'ta', 'r', 'u', 't', 'allow', 'success', '${"0".repeat(64)}')`,
          );
          // One store orders its own log writes, so the two tenants are written by two stores.
          const other = await stores.peer({ decisionLog: { durability: "sync" } });
          let taDone = false;
          const ta = store.appendDecision(entry("ta", 1)).then(() => void (taDone = true));
          await other.appendDecision(entry("tb", 1));
          expect(taDone).toBe(false);
          await holder.query("ROLLBACK");
          await ta;
        } finally {
          await holder.end();
        }
        const v = verifyChain(await readChain(store));
        expect(v.ok).toBe(true);
        expect(tenantOf(v, "ta").records).toBe(2);
      });
    });
  }
}, { sqlite: "file" });
