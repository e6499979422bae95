/**
 * The approvals inbox in a real browser (playwright-core driving the system Chromium):
 * an agent's write gets approval_required; the approver opens the inbox, sees the exact
 * preview and approves; the host resumes and the write commits once. Also reject, edit
 * (diff shown, the edited call commits with the new arguments), a second approver
 * cannot re-decide, an approver of another tenant gets 404 (as for an unknown id), and the requester cannot
 * approve their own call. The page says what happens next to the call (it ran, or it waits for
 * the host to resume it in an inbox that does not run calls), and the sign-out button ends
 * the session. Screenshots go to test/artifacts/ (and, with
 * TOOLGATE_UPDATE_DOCS=1, the README's docs/approval-detail.png).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifest } from "../../generated/index.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { createInboxApp, createTokenVerifier, issueApproverToken, listenInbox } from "../../src/server/index.js";
import type { RunningInbox } from "../../src/server/index.js";
import { manualClock } from "../../src/testing/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";
import { browserRequired, chromiumArgs, findChromium } from "./find-chromium.js";

const executable = findChromium();
if (executable === null) {
  const msg = "no Chromium found (install Debian's chromium: apt-get install -y chromium, or set TOOLGATE_CHROMIUM)";
  if (browserRequired()) throw new Error(`inbox browser test: ${msg}; a browser is required here (TOOLGATE_REQUIRE_BROWSER / CI)`);
  console.warn(`[inbox browser test] SKIPPED: ${msg}`);
}

const SECRET = "browser-test-secret-".repeat(3);
const artifacts = join(process.cwd(), "test", "artifacts");
const docs = join(process.cwd(), "docs");

describe.skipIf(executable === null)("approvals inbox in Chromium", () => {
  let policy: PolicyEngine;
  let gate: Gate;
  let server: RunningInbox;
  /** The same store behind an inbox that only decides: the host resumes approved calls. */
  let decideOnly: RunningInbox;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    policy = await loadShippedPolicy();
    gate = makeGate({ policy, clock: manualClock(Date.now()) });
    const app = createInboxApp({
      approvals: gate.runtime.approvals,
      verifyApprover: createTokenVerifier({ secret: SECRET }),
      csrfSecret: `${SECRET}-csrf`,
      now: () => gate.clock.now(),
      onError: () => undefined,
      operations: gate.store,
      tools: manifest.tools,
    });
    server = await listenInbox(app);
    decideOnly = await listenInbox(
      createInboxApp({
        approvals: gate.runtime.approvals,
        resumeOnDecision: false,
        verifyApprover: createTokenVerifier({ secret: SECRET }),
        csrfSecret: `${SECRET}-csrf`,
        now: () => gate.clock.now(),
        onError: () => undefined,
        operations: gate.store,
        tools: manifest.tools,
      }),
    );
    // Playwright's launch() starts every browser with a fresh temporary user-data-dir.
    browser = await chromium.launch({ executablePath: executable!, headless: true, args: chromiumArgs });
    mkdirSync(artifacts, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
    await server?.close();
    await decideOnly?.close();
  });

  /** A signed-in approver in their own browser context (own cookies). */
  async function signIn(tenant: string, user: string, roles: string[] = ["approver"], inbox: RunningInbox = server): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${inbox.url}/approvals`);
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.fill("#token", await issueApproverToken({ secret: SECRET, tenant, user, roles, nowMs: Date.now() }));
    const [response] = await Promise.all([page.waitForNavigation(), page.click("#sign-in")]);
    if (new URL(page.url()).pathname !== "/approvals") {
      throw new Error(`sign-in as ${user} did not reach the inbox: ${response?.status() ?? "no response"} ${page.url()}\n${(await page.content()).slice(0, 2_000)}`);
    }
    return page;
  }

  async function agentWrite(op: string, amount: number): Promise<string> {
    const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(amount), operation_id: op });
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
    if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error("no approval id");
    return env.approval_id;
  }

  it("approve: the inbox lists the call, the detail shows the exact preview; the host resumes and the write commits once", async () => {
    const id = await agentWrite("op-b-approve", 4_200);
    const bob = await signIn("t_acme", "bob");
    await bob.reload();
    const row = bob.locator(`tr[data-approval="${id}"]`);
    await expect(row.textContent()).resolves.toContain("reserve_funds");
    await expect(row.textContent()).resolves.toContain("amount=4200");
    await bob.screenshot({ path: join(artifacts, "inbox.png"), fullPage: true });
    await row.locator("a").click();
    await bob.waitForURL(`${server.url}/approvals/${id}`);
    const preview = await bob.locator("#preview").innerText();
    for (const [k, v] of Object.entries(reserveArgs(4_200))) expect(preview).toContain(`${k}\t${JSON.stringify(v)}`);
    expect(await bob.locator("#requester").innerText()).toBe("alice");
    expect(await bob.locator("#policy-reason").innerText()).toBe("approval_required");
    expect(await bob.locator("#expires").innerText()).toMatch(/UTC/);
    expect(JSON.parse(await bob.locator("#args").innerText())).toEqual(reserveArgs(4_200));
    await bob.screenshot({ path: join(artifacts, "detail.png"), fullPage: true });
    if (process.env["TOOLGATE_UPDATE_DOCS"] === "1") {
      // The README's screenshot is checked in; refresh it only on request so test runs leave the tree clean.
      mkdirSync(docs, { recursive: true });
      await bob.screenshot({ path: join(docs, "approval-detail.png") });
    }
    expect(await bob.locator("#next-step").innerText()).toBe(
      "What happens next: Waiting for a decision. Once approved, this inbox runs it on the host as soon as it is approved (exactly once, as resume does).",
    );
    expect(await bob.locator("#tool-effect").innerText()).toBe("reversible_write");
    expect(await bob.locator("#tool-description").innerText()).toBe(manifest.tools["reserve_funds"]!.description);
    await bob.fill('input[aria-label="approve reason"]', "matches the invoice");
    await bob.click("#approve");
    await bob.waitForURL(/done=approve/);
    expect(await bob.locator("#flash").innerText()).toBe("Approved. The host ran the call.");
    expect(await bob.locator("#next-step").innerText()).toBe("What happens next: The call has run: success.");
    expect(await bob.locator("#next-step").getAttribute("data-state")).toBe("ran");
    expect(gate.ledger.effectsOf("op-b-approve")).toHaveLength(1);
    // The model's own retry afterwards replays; still one effect.
    const retry = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(4_200), operation_id: "op-b-approve", approval_id: id });
    expect(retry).toMatchObject({ outcome: "success", replayed: true });
    expect(gate.ledger.effectsOf("op-b-approve")).toHaveLength(1);
  }, 60_000);

  it("reject: the call never runs and the model's retry is denied", async () => {
    const id = await agentWrite("op-b-reject", 900);
    const bob = await signIn("t_acme", "bob");
    await bob.goto(`${server.url}/approvals/${id}`);
    await bob.fill('input[aria-label="reject reason"]', "wrong recipient");
    await bob.click("#reject");
    await bob.waitForURL(/done=reject/);
    expect(await bob.locator("#flash").innerText()).toBe("Rejected.");
    expect(await bob.locator("#next-step").innerText()).toBe("What happens next: The call will not run: the approval was rejected.");
    expect(await bob.locator("#events").innerText()).toContain("wrong recipient");
    const retry = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(900), operation_id: "op-b-reject", approval_id: id });
    expect(retry).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
    expect(gate.ledger.effectsOf("op-b-reject")).toHaveLength(0);
  }, 60_000);

  it("edit: the diff against the original arguments is shown; the edited call commits with the new arguments, once", async () => {
    const id = await agentWrite("op-b-edit", 1_000);
    const before = gate.ledger.effects.length;
    const bob = await signIn("t_acme", "bob");
    await bob.goto(`${server.url}/approvals/${id}`);
    await bob.fill("#edited_args", JSON.stringify(reserveArgs(650), null, 2));
    await bob.click("#edit");
    const diff = await bob.locator("#diff tbody tr").allInnerTexts();
    expect(diff).toEqual(["/amount\tchanged\t1000\t650"]);
    await bob.screenshot({ path: join(artifacts, "edit-diff.png"), fullPage: true });
    await bob.click("#confirm-edit");
    await bob.waitForURL(/done=edit/);
    expect(await bob.locator("#flash").innerText()).toBe("Edited: the edited call is approved. The host ran the call.");
    expect(await bob.locator("#diff").innerText()).toContain("650");
    expect(gate.ledger.effects.length - before).toBe(1);
    const created = [...gate.ledger.reservations.values()].filter((r) => r.amount === 650);
    expect(created).toHaveLength(1);
    expect(gate.ledger.effectsOf("op-b-edit")).toHaveLength(0);
  }, 60_000);

  it("a second approver cannot re-decide: their stale Approve is refused with 409 and nothing changes", async () => {
    const id = await agentWrite("op-b-second", 300);
    const bob = await signIn("t_acme", "bob");
    const carol = await signIn("t_acme", "carol");
    await carol.goto(`${server.url}/approvals/${id}`);
    await bob.goto(`${server.url}/approvals/${id}`);
    await bob.click("#reject");
    await bob.waitForURL(/done=reject/);
    const [res] = await Promise.all([carol.waitForResponse((r) => r.url().endsWith("/decide")), carol.click("#approve")]);
    expect(res.status()).toBe(409);
    expect(await carol.locator("#error").innerText()).toMatch(/already_decided/);
    expect(await carol.locator("#approve").count()).toBe(0);
    expect(gate.ledger.effectsOf("op-b-second")).toHaveLength(0);
    expect((await gate.store.listApprovalEvents(id)).map((e) => `${e.decision}:${e.approver}`)).toEqual(["reject:bob"]);
  }, 60_000);

  it("an approver of another tenant gets 404, as for an unknown id, and does not see the call in their inbox", async () => {
    const id = await agentWrite("op-b-tenant", 500);
    const eve = await signIn("t_evil", "eve");
    expect(await eve.locator(`tr[data-approval="${id}"]`).count()).toBe(0);
    const res = await eve.goto(`${server.url}/approvals/${id}`);
    expect(res?.status()).toBe(404);
    expect(await eve.locator("#error").innerText()).toMatch(/does not exist/);
    expect(await eve.locator("#approve").count()).toBe(0);
  }, 60_000);

  it("in an inbox that does not run calls, the page says the approved call waits for the host, and that it ran once the host resumed it", async () => {
    const id = await agentWrite("op-b-host", 450);
    const bob = await signIn("t_acme", "bob", ["approver"], decideOnly);
    await bob.goto(`${decideOnly.url}/approvals/${id}`);
    expect(await bob.locator("#next-step").innerText()).toContain("this inbox does not run calls: the host resumes it");
    await bob.click("#approve");
    await bob.waitForURL(/done=approve/);
    expect(await bob.locator("#flash").innerText()).toBe("Approved.");
    expect(await bob.locator("#next-step").getAttribute("data-state")).toBe("awaiting_resume");
    expect(await bob.locator("#next-step").innerText()).toBe(
      `What happens next: Approved; the call has not run yet. It waits for the host to resume it or the agent to retry with approval id ${id}.`,
    );
    expect(gate.ledger.effectsOf("op-b-host")).toHaveLength(0);
    expect(await gate.runtime.approvals.resume(id)).toMatchObject({ ok: true, envelope: { outcome: "success" } });
    await bob.reload();
    expect(await bob.locator("#next-step").innerText()).toBe("What happens next: The call has run: success.");
    expect(gate.ledger.effectsOf("op-b-host")).toHaveLength(1);
  }, 60_000);

  it("the sign-out button ends the session: the inbox asks to sign in again", async () => {
    const bob = await signIn("t_acme", "bob");
    await expect(bob.locator("#sign-out").innerText()).resolves.toBe("Sign out");
    await Promise.all([bob.waitForURL(`${server.url}/login`), bob.click("#sign-out")]);
    expect(await bob.context().cookies(server.url)).not.toContainEqual(expect.objectContaining({ name: "toolgate_approver" }));
    await bob.goto(`${server.url}/approvals`);
    expect(new URL(bob.url()).pathname).toBe("/login");
    expect(await bob.locator("#sign-out").count()).toBe(0);
  }, 60_000);

  it("the requester cannot approve their own call", async () => {
    const id = await agentWrite("op-b-self", 700);
    const self = await signIn("t_acme", "alice", ["agent"]);
    await self.goto(`${server.url}/approvals/${id}`);
    const [res] = await Promise.all([self.waitForResponse((r) => r.url().endsWith("/decide")), self.click("#approve")]);
    expect(res.status()).toBe(403);
    expect(await self.locator("#error").innerText()).toMatch(/alice requested this call and cannot/);
    expect((await gate.store.getApproval(id))?.status).toBe("pending");
    expect(gate.ledger.effectsOf("op-b-self")).toHaveLength(0);
  }, 60_000);
});
