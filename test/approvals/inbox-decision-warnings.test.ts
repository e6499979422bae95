/**
 * The HTML inbox shows a decision's warnings (policy_code_not_current, ...) on the page it
 * redirects to after the decision, once; a flash cookie made for another approval, another
 * approver or by anyone without the secret shows nothing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import { createApprovals } from "../../src/approvals/index.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { versionsOf } from "../../src/policy/version.js";
import { createInboxApp, createTokenVerifier, issueApproverToken } from "../../src/server/index.js";
import { encodeFlash, flashCookie } from "../../src/server/flash.js";
import { openSqliteStore } from "../../src/store/index.js";
import { alice, ENTRYPOINT, loadShippedPolicy, makeGate, reserveArgs, until } from "../runtime/harness.js";

const SECRET = "s".repeat(40);
const CSRF = "c".repeat(40);
let policy: PolicyEngine;
beforeAll(async () => {
  policy = await loadShippedPolicy();
});

/** An approver service that still runs the old policy code while the gates moved on: its approvals warn. */
async function staleApprover() {
  const store = openSqliteStore(":memory:");
  const gate = makeGate({ policy, store });
  const ask = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-warn" });
  const approvalId = ask.outcome === "terminal_failure" ? (ask.approval_id ?? "") : "";
  gate.runtime.setPolicy({ ...versionsOf(policy), version: "sha256:new", code_version: "sha256:new-code", evaluate: (i) => policy.evaluate(i) });
  await until(async () => (await store.getCurrentPolicy(ENTRYPOINT))?.code_version === "sha256:new-code");
  const approvals = createApprovals({ store, manifest, validators, policy, clock: gate.clock });
  const app = createInboxApp({ approvals, verifyApprover: createTokenVerifier({ secret: SECRET }), csrfSecret: CSRF, now: () => gate.clock.now() });
  return { app, approvalId };
}

type App = ReturnType<typeof createInboxApp>;

async function signedIn(app: App, user: string, path: string) {
  const jwt = await issueApproverToken({ secret: SECRET, tenant: "t_acme", user, roles: ["approver"], nowMs: Date.now() });
  const first = await app.request(path, { headers: { cookie: `toolgate_approver=${jwt}` } });
  const csrfCookie = /toolgate_csrf=([^;]+)/.exec(first.headers.get("set-cookie") ?? "")?.[1] ?? "";
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await first.text())?.[1] ?? "";
  return { cookie: `toolgate_approver=${jwt}; toolgate_csrf=${csrfCookie}`, csrf };
}

const flashOf = (res: Response): string | null => {
  const set = res.headers.get("set-cookie") ?? "";
  return new RegExp(`${flashCookie}=([^;]*)`).exec(set)?.[1] ?? null;
};

describe("inbox: a decision's warnings after the redirect", () => {
  it("shows policy_code_not_current on the page after approving, once", async () => {
    const { app, approvalId } = await staleApprover();
    const page = `/approvals/${approvalId}`;
    const bob = await signedIn(app, "bob", page);
    const decided = await app.request(`${page}/decide`, {
      method: "POST",
      headers: { cookie: bob.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: bob.csrf, decision: "approve" }).toString(),
    });
    expect(decided.status).toBe(303);
    const location = decided.headers.get("location") ?? "";
    expect(location.startsWith(page)).toBe(true);
    const flash = flashOf(decided);
    expect(flash).not.toBeNull();
    expect(decided.headers.get("set-cookie")).toMatch(new RegExp(`${flashCookie}=[^;]+; Path=${page}; Max-Age=60; HttpOnly; SameSite=Strict`));

    const after = await app.request(location, { headers: { cookie: `${bob.cookie}; ${flashCookie}=${flash}` } });
    const html = await after.text();
    expect(html).toContain('id="flash">Approved.');
    expect(html).toMatch(/id="warnings">.*policy_code_not_current: you decide under policy code/s);
    expect(html).toContain("sha256:new-code");
    // read once: the page clears the cookie
    expect(after.headers.get("set-cookie")).toMatch(new RegExp(`${flashCookie}=; Path=${page}; Max-Age=0`));
    const reload = await (await app.request(location, { headers: { cookie: bob.cookie } })).text();
    expect(reload).not.toContain('id="warnings"');
  });

  it("ignores a flash cookie that is forged, made for another approval or for another approver", async () => {
    const { app, approvalId } = await staleApprover();
    const page = `/approvals/${approvalId}`;
    const bob = await signedIn(app, "bob", page);
    const subject = "t_acme\u0000bob";
    const cases = {
      forged: encodeFlash("x".repeat(40), approvalId, subject, ["policy_code_not_current: forged"]),
      otherApproval: encodeFlash(CSRF, "apr_other", subject, ["policy_code_not_current: other approval"]),
      otherApprover: encodeFlash(CSRF, approvalId, "t_acme\u0000carol", ["policy_code_not_current: other approver"]),
      garbage: "not-a-flash",
    };
    for (const [what, value] of Object.entries(cases)) {
      const html = await (await app.request(page, { headers: { cookie: `${bob.cookie}; ${flashCookie}=${value}` } })).text();
      expect(html, what).not.toContain('id="warnings"');
    }
    const genuine = encodeFlash(CSRF, approvalId, subject, ["policy_code_not_current: <b>escaped</b>"]);
    const html = await (await app.request(page, { headers: { cookie: `${bob.cookie}; ${flashCookie}=${genuine}` } })).text();
    expect(html).toContain("<li>policy_code_not_current: &lt;b&gt;escaped&lt;/b&gt;</li>");
  });
});
