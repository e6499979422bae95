/**
 * `toolgate approvals list|show|approve|reject|edit|revoke` and `toolgate token`, run
 * in process against a SQLite file the runtime wrote (PostgreSQL goes through the same
 * store interface, covered by the store contract).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { verifyApproverToken } from "../../src/server/approver-token.js";
import { openSqliteStore } from "../../src/store/index.js";
import { manualClock } from "../../src/testing/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";
import { runCli, type CliRun } from "../helpers/cli.js";

let policy: PolicyEngine;
let dir: string;
let db: string;
let gate: Gate;
beforeAll(async () => {
  policy = await loadShippedPolicy();
  dir = mkdtempSync(join(tmpdir(), "toolgate-approvals-cli-"));
  db = join(dir, "state.db");
  // The CLI reads the real clock, so the runtime does too.
  gate = makeGate({ policy, store: openSqliteStore(db), clock: manualClock(Date.now()) });
});
afterAll(async () => {
  await gate.store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<CliRun> {
  return runCli(argv);
}

async function pending(op: string, amount = 1_000): Promise<string> {
  const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(amount), operation_id: op });
  if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
  return env.approval_id;
}

const bob = ["--as", "bob", "--tenant", "t_acme", "--role", "approver"];

describe("toolgate approvals", () => {
  it("list prints a table of the tenant's pending approvals, --format json the page", async () => {
    const id = await pending("op-cli-list");
    const table = await cli("approvals", "list", "--db", db, ...bob);
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^id\s+tool\s+status\s+requested_by\s+created\s+expires\s+preview$/);
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+reserve_funds\\s+pending\\s+alice`));
    const json = await cli("approvals", "list", "--db", db, ...bob, "--format", "json");
    const page = JSON.parse(json.stdout) as { approvals: { id: string }[]; next_cursor: string | null };
    expect(page.approvals.map((a) => a.id)).toContain(id);
    const other = await cli("approvals", "list", "--db", db, "--as", "eve", "--tenant", "t_evil", "--format", "json");
    expect(JSON.parse(other.stdout)).toEqual({ approvals: [], next_cursor: null });
  });

  it("show prints the preview, all arguments, the policy's reason, requester and expiry; other tenants get not_found", async () => {
    const id = await pending("op-cli-show", 1_234);
    const r = await cli("approvals", "show", id, "--db", db, ...bob);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/requested_by\s+alice/);
    expect(r.stdout).toMatch(/policy reason approval_required/);
    expect(r.stdout).toContain('amount: 1234');
    expect(r.stdout).toMatch(/expires\s+\d{4}-\d\d-\d\dT/);
    const eve = await cli("approvals", "show", id, "--db", db, "--as", "eve", "--tenant", "t_evil");
    expect(eve.code).toBe(1);
    expect(eve.stderr).toMatch(/not_found/);
  });

  it("approve records the decision as --as/--tenant/--role; the host then resumes it once", async () => {
    const id = await pending("op-cli-approve");
    const r = await cli("approvals", "approve", id, "--db", db, ...bob, "--reason", "fine");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${id}: approved by bob`);
    const events = await gate.store.listApprovalEvents(id);
    expect(events).toMatchObject([{ decision: "approve", approver: "bob", approver_roles: ["approver"], reason: "fine" }]);
    const resumed = await gate.runtime.approvals.resume(id);
    expect(resumed).toMatchObject({ ok: true, envelope: { outcome: "success" } });
    expect(gate.ledger.effectsOf("op-cli-approve")).toHaveLength(1);
    const again = await cli("approvals", "reject", id, "--db", db, "--as", "carol", "--tenant", "t_acme", "--role", "approver");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already_decided/);
  });

  it("the requester cannot approve their own call", async () => {
    const id = await pending("op-cli-self");
    const r = await cli("approvals", "approve", id, "--db", db, "--as", "alice", "--tenant", "t_acme");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/self_approval/);
    expect((await gate.store.getApproval(id))?.status).toBe("pending");
  });

  it("edit validates the new arguments against the tool's schema; the edited call resumes with them", async () => {
    const id = await pending("op-cli-edit", 1_000);
    const bad = await cli("approvals", "edit", id, "--db", db, ...bob, "--args", JSON.stringify(reserveArgs(-5)));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/invalid_edit.*amount/);
    const notJson = await cli("approvals", "edit", id, "--db", db, ...bob, "--args", "{amount: 5");
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/invalid_args/);
    const ok = await cli("approvals", "edit", id, "--db", db, ...bob, "--args", JSON.stringify(reserveArgs(400)), "--format", "json");
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, approval: { status: "edited" }, edited: { args: { amount: 400 } } });
    const resumed = await gate.runtime.approvals.resume(id);
    expect(resumed).toMatchObject({ ok: true, envelope: { outcome: "success" } });
    if (resumed.ok) expect(gate.ledger.reservationByOperation(resumed.operation_id)).toMatchObject({ amount: 400 });
  });

  it("reject and revoke; a revoked approval resumes to a terminal envelope", async () => {
    const a = await pending("op-cli-reject");
    expect((await cli("approvals", "reject", a, "--db", db, ...bob, "--reason", "no")).code).toBe(0);
    const b = await pending("op-cli-revoke");
    expect((await cli("approvals", "approve", b, "--db", db, ...bob)).code).toBe(0);
    expect((await cli("approvals", "revoke", b, "--db", db, ...bob)).code).toBe(0);
    const r = await gate.runtime.approvals.resume(b);
    expect(r).toMatchObject({ ok: true, envelope: { outcome: "terminal_failure", reason: "policy_denied" } });
    expect(gate.ledger.effectsOf("op-cli-revoke")).toHaveLength(0);
  });

  it("usage problems say what to do: no identity, no store, bad format", async () => {
    const noWho = await cli("approvals", "list", "--db", db);
    expect(noWho.code).toBe(1);
    expect(noWho.stderr).toMatch(/approver_missing.*--as USER --tenant TENANT/);
    const saved = process.env["TOOLGATE_PG_URL"];
    delete process.env["TOOLGATE_PG_URL"];
    try {
      const noStore = await cli("approvals", "list", ...bob);
      expect(noStore.stderr).toMatch(/store_missing: no store: pass --db FILE or --url URL/);
    } finally {
      if (saved !== undefined) process.env["TOOLGATE_PG_URL"] = saved;
    }
    const missing = await cli("approvals", "list", "--db", join(dir, "nope.db"), ...bob);
    expect(missing.stderr).toMatch(/file_not_found/);
    const fmt = await cli("approvals", "list", "--db", db, ...bob, "--format", "xml");
    expect(fmt.code).toBe(2);
  });
});

describe("toolgate token", () => {
  it("issues a JWT the inbox verifier accepts, with tenant, user, roles and expiry", async () => {
    const secret = "k".repeat(48);
    process.env["TOOLGATE_APPROVER_SECRET"] = secret;
    try {
      const r = await cli("token", "--tenant", "t_acme", "--user", "bob", "--role", "approver", "--role", "ops", "--ttl", "15m");
      expect(r.code).toBe(0);
      expect(await verifyApproverToken(r.stdout.trim(), secret)).toEqual({ tenant: "t_acme", user: "bob", roles: ["approver", "ops"] });
      expect(await verifyApproverToken(r.stdout.trim(), secret, Date.now() + 16 * 60_000)).toBeNull();
      expect(await verifyApproverToken(r.stdout.trim(), "w".repeat(48))).toBeNull();
      expect((await cli("token", "--tenant", "t acme", "--user", "bob")).code).toBe(1);
    } finally {
      delete process.env["TOOLGATE_APPROVER_SECRET"];
    }
    const noSecret = await cli("token", "--tenant", "t_acme", "--user", "bob");
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr).toMatch(/TOOLGATE_APPROVER_SECRET/);
  });

  it("toolgate token issues tokens only within the maximum token lifetime", async () => {
    const secret = "k".repeat(48);
    process.env["TOOLGATE_APPROVER_SECRET"] = secret;
    try {
      const long = await cli("token", "--tenant", "t_acme", "--user", "bob", "--ttl", "36500d");
      expect(long.code).toBe(1);
      expect(long.stdout).toBe("");
      expect(long.stderr).toMatch(/ttl_too_long: --ttl 36500d exceeds the maximum token lifetime 24h/);
      expect((await cli("token", "--tenant", "t_acme", "--user", "bob", "--ttl", "25h")).code).toBe(1);
      const day = await cli("token", "--tenant", "t_acme", "--user", "bob", "--ttl", "24h");
      expect(day.code).toBe(0);
      expect(await verifyApproverToken(day.stdout.trim(), secret)).toMatchObject({ user: "bob" });
      const week = await cli("token", "--tenant", "t_acme", "--user", "bob", "--ttl", "7d", "--max-token-lifetime", "7d");
      expect(week.code).toBe(0);
      // The default verifier (24h) refuses it; one configured like the issuer accepts it.
      expect(await verifyApproverToken(week.stdout.trim(), secret)).toBeNull();
      expect(await verifyApproverToken(week.stdout.trim(), secret, undefined, 7 * 86_400)).toMatchObject({ user: "bob" });
      expect((await cli("token", "--tenant", "t_acme", "--user", "bob", "--max-token-lifetime", "soon")).code).toBe(1);
    } finally {
      delete process.env["TOOLGATE_APPROVER_SECRET"];
    }
  });
});

describe("toolgate serve --handlers", () => {
  it("a missing handler module, or one without handlers, is a located input error (exit 1), not a crash", async () => {
    process.env["TOOLGATE_APPROVER_SECRET"] = "k".repeat(48);
    try {
      const missing = await cli("serve", "--db", db, "--port", "0", "--handlers", join(dir, "nope.js"));
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/toolgate serve:1:1 file_not_found: handler module .*nope\.js does not exist/);
      const empty = join(dir, "empty-handlers.mjs");
      writeFileSync(empty, "export const notHandlers = 1;\n");
      const none = await cli("serve", "--db", db, "--port", "0", "--handlers", empty);
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/handlers_missing: .*does not export `handlers`/);
      const partial = join(dir, "partial-handlers.mjs");
      writeFileSync(partial, "export const handlers = { get_account: async () => ({}) };\n");
      const some = await cli("serve", "--db", db, "--port", "0", "--handlers", partial);
      expect(some.code).toBe(1);
      expect(some.stderr).toMatch(/handlers_invalid: .*missing/);
    } finally {
      delete process.env["TOOLGATE_APPROVER_SECRET"];
    }
  });
});
