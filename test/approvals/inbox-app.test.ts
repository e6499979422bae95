/**
 * The HTTP inbox without a browser (Hono's app.request): authentication, tenant
 * isolation, CSRF on every state-changing request, escaping of everything rendered,
 * the JSON API, the edit diff, and host-side resume after approval.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { checkApproverToken, createInboxApp, createTokenVerifier, diffArgs, issueApproverToken } from "../../src/server/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";

const SECRET = "s".repeat(40);
const CSRF = "c".repeat(40);
let policy: PolicyEngine;
beforeAll(async () => {
  policy = await loadShippedPolicy();
});

async function setup() {
  const gate = makeGate({ policy });
  const app = createInboxApp({ approvals: gate.runtime.approvals, verifyApprover: createTokenVerifier({ secret: SECRET }), csrfSecret: CSRF, now: () => gate.clock.now() });
  const token = (tenant: string, user: string) => issueApproverToken({ secret: SECRET, tenant, user, roles: ["approver"], nowMs: Date.now() });
  return { gate, app, token };
}

async function pending(gate: Gate, op: string, args = reserveArgs()): Promise<string> {
  const env = await gate.runtime.call(alice, { tool: "reserve_funds", args, operation_id: op });
  if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
  return env.approval_id;
}

/** A browser session: the session cookie plus the CSRF cookie from a first GET, and the page's CSRF token. */
async function browser(app: ReturnType<typeof createInboxApp>, jwt: string, path: string) {
  const first = await app.request(path, { headers: { cookie: `toolgate_approver=${jwt}` } });
  const set = first.headers.get("set-cookie") ?? "";
  const csrfCookie = /toolgate_csrf=([^;]+)/.exec(set)?.[1] ?? "";
  const html = await first.text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  return { status: first.status, html, cookie: `toolgate_approver=${jwt}; toolgate_csrf=${csrfCookie}`, csrf };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const formHeaders = (cookie: string) => ({ cookie, "content-type": "application/x-www-form-urlencoded" });

describe("inbox HTTP app", () => {
  it("without a valid token: pages redirect to /login, the API answers 401, a forged token too", async () => {
    const { app } = await setup();
    const page = await app.request("/approvals");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toMatch(/^\/login/);
    expect((await app.request("/api/approvals")).status).toBe(401);
    const forged = await issueApproverToken({ secret: "x".repeat(40), tenant: "t_acme", user: "bob", roles: [] });
    expect((await app.request("/api/approvals", { headers: { authorization: `Bearer ${forged}` } })).status).toBe(401);
    const expired = await issueApproverToken({ secret: SECRET, tenant: "t_acme", user: "bob", roles: [], ttlSeconds: 1, nowMs: Date.now() - 10_000 });
    expect((await app.request("/api/approvals", { headers: { authorization: `Bearer ${expired}` } })).status).toBe(401);
  });

  it("lists the tenant's pending approvals and shows the detail; another tenant gets 404, as for an id that does not exist", async () => {
    const { gate, app, token } = await setup();
    const id = await pending(gate, "op-1");
    const bob = await token("t_acme", "bob");
    const list = await browser(app, bob, "/approvals");
    expect(list.status).toBe(200);
    expect(list.html).toContain(`/approvals/${id}`);
    const detail = await browser(app, bob, `/approvals/${id}`);
    expect(detail.html).toContain("acc_alice");
    expect(detail.html).toContain('id="policy-reason">approval_required');
    expect(detail.html).toContain('id="requester">alice');
    const eve = await token("t_evil", "eve");
    expect((await browser(app, eve, `/approvals/${id}`)).status).toBe(404);
    expect((await app.request(`/api/approvals/${id}`, { headers: { authorization: `Bearer ${eve}` } })).status).toBe(404);
    const evesList = (await (await app.request("/api/approvals", { headers: { authorization: `Bearer ${eve}` } })).json()) as { approvals: unknown[] };
    expect(evesList.approvals).toEqual([]);
    const decide = await app.request(`/api/approvals/${id}/decision`, {
      method: "POST",
      headers: { authorization: `Bearer ${eve}`, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve" }),
    });
    expect(decide.status).toBe(404);
    expect((await gate.store.getApproval(id))?.status).toBe("pending");
  });

  it("a cookie-authenticated decision without the CSRF token, or from another site, is refused and records nothing", async () => {
    const { gate, app, token } = await setup();
    const id = await pending(gate, "op-csrf");
    const s = await browser(app, await token("t_acme", "bob"), `/approvals/${id}`);
    const post = (fields: Record<string, string>, extra: Record<string, string> = {}) =>
      app.request(`/approvals/${id}/decide`, { method: "POST", headers: { ...formHeaders(s.cookie), ...extra }, body: form(fields) });
    expect((await post({ decision: "approve" })).status).toBe(403);
    expect((await post({ decision: "approve", _csrf: "forged" })).status).toBe(403);
    expect((await post({ decision: "approve", _csrf: s.csrf }, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post({ decision: "approve", _csrf: s.csrf }, { origin: "https://evil.example" })).status).toBe(403);
    const json = await app.request(`/api/approvals/${id}/decision`, { method: "POST", headers: { cookie: s.cookie, "content-type": "application/json" }, body: JSON.stringify({ decision: "approve" }) });
    expect(json.status).toBe(403);
    expect((await gate.store.getApproval(id))?.status).toBe("pending");
    // With the token the same request goes through, and the host resumes the call.
    const ok = await post({ decision: "approve", _csrf: s.csrf });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe(`/approvals/${id}?done=approve&resumed=success`);
    expect(gate.ledger.effectsOf("op-csrf")).toHaveLength(1);
  });

  it("escapes every value it renders (arguments, reasons, ids)", async () => {
    const { gate, app, token } = await setup();
    const xss = `<script>alert("x")</script>`;
    const env = await gate.runtime.call(alice, { tool: "send_notification", args: { account_id: "acc_alice", channel: "email", message: xss }, operation_id: "op-xss" });
    if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
    const id = env.approval_id;
    const bob = await token("t_acme", "bob");
    const s = await browser(app, bob, `/approvals/${id}`);
    expect(s.html).toContain("&lt;script&gt;alert(");
    const rejected = await app.request(`/approvals/${id}/decide`, { method: "POST", headers: formHeaders(s.cookie), body: form({ _csrf: s.csrf, decision: "reject", reason: `<img src=x onerror=alert(1)>` }) });
    expect(rejected.status).toBe(303);
    const after = await browser(app, bob, `/approvals/${id}`);
    const list = await browser(app, bob, "/approvals?status=all");
    for (const html of [s.html, after.html, list.html]) {
      expect(html).not.toContain("<script>alert");
      expect(html).not.toContain("<img src=x");
    }
    expect(after.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });

  it("the JSON API lists with a cursor, shows the detail and decides with a bearer token", async () => {
    const { gate, app, token } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await pending(gate, `op-api-${i}`, reserveArgs(100 + i)));
      gate.clock.advance(1);
    }
    const auth = { authorization: `Bearer ${await token("t_acme", "bob")}` };
    const p1 = (await (await app.request("/api/approvals?limit=2", { headers: auth })).json()) as { approvals: { id: string }[]; next_cursor: string };
    expect(p1.approvals.map((a) => a.id)).toEqual([ids[2], ids[1]]);
    const p2 = (await (await app.request(`/api/approvals?limit=2&cursor=${p1.next_cursor}`, { headers: auth })).json()) as { approvals: { id: string }[]; next_cursor: null };
    expect(p2).toMatchObject({ approvals: [{ id: ids[0] }], next_cursor: null });
    expect((await app.request("/api/approvals?cursor=nonsense!", { headers: auth })).status).toBe(400);
    expect((await app.request("/api/approvals?limit=100000", { headers: auth })).status).toBe(400);
    const detail = (await (await app.request(`/api/approvals/${ids[0]}`, { headers: auth })).json()) as Record<string, unknown>;
    expect(detail).toMatchObject({ id: ids[0], tool: "reserve_funds", requested_by: "alice", policy_reason: "approval_required", operation_id: "op-api-0", events: [] });
    const bad = await app.request(`/api/approvals/${ids[0]}/decision`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ decision: "yes please" }) });
    expect(bad.status).toBe(400);
    const res = await app.request(`/api/approvals/${ids[0]}/decision`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ decision: "approve", reason: "ok" }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, approval: { status: "approved" }, resumed: { ok: true, envelope: { outcome: "success" } } });
    const again = await app.request(`/api/approvals/${ids[0]}/decision`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ decision: "reject" }) });
    expect(again.status).toBe(409);
  });

  it("an edit is reviewed with a diff before it is recorded; the edited call runs with the new arguments", async () => {
    const { gate, app, token } = await setup();
    const id = await pending(gate, "op-edit", reserveArgs(1_000));
    const bob = await token("t_acme", "bob");
    const s = await browser(app, bob, `/approvals/${id}`);
    const review = await app.request(`/approvals/${id}/edit`, {
      method: "POST",
      headers: formHeaders(s.cookie),
      body: form({ _csrf: s.csrf, edited_args: JSON.stringify(reserveArgs(600)), reason: "smaller" }),
    });
    const html = await review.text();
    expect(review.status).toBe(200);
    expect(html).toMatch(/<tr class="changed"><td><code>\/amount<\/code><\/td><td>changed<\/td><td><code>1000<\/code><\/td><td><code>600<\/code>/);
    expect((await gate.store.getApproval(id))?.status).toBe("pending");
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
    const edited = /name="edited_args" value="([^"]+)"/.exec(html)![1]!.replace(/&quot;/g, '"');
    const done = await app.request(`/approvals/${id}/decide`, { method: "POST", headers: formHeaders(s.cookie), body: form({ _csrf: csrf, decision: "edit", edited_args: edited, reason: "smaller" }) });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toContain("resumed=success");
    const reservations = [...gate.ledger.reservations.values()];
    expect(reservations.map((r) => r.amount)).toEqual([600]);
    const after = await browser(app, bob, `/approvals/${id}`);
    expect(after.html).toContain('id="diff"');
  });

  it("diffArgs names changed, added and removed fields by JSON pointer", () => {
    expect(diffArgs({ a: 1, b: { c: 2 }, d: 3 }, { a: 1, b: { c: 5 }, e: "x" })).toEqual([
      { path: "/b/c", kind: "changed", before: 2, after: 5 },
      { path: "/d", kind: "removed", before: 3 },
      { path: "/e", kind: "added", after: "x" },
    ]);
  });
});

describe("inbox HTTP hardening", () => {
  it("pages cannot be framed and load nothing from elsewhere; oversized bodies are refused", async () => {
    const { app, token } = await setup();
    const auth = { authorization: `Bearer ${await token("t_acme", "bob")}` };
    const res = await app.request("/approvals", { headers: auth });
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const big = await app.request("/api/approvals/apr_x/decision", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ decision: "edit", edited_args: { pad: "x".repeat(300_000) } }),
    });
    expect(big.status).toBe(413);
  });

  it("hostile ids and query values get typed 4xx answers, never a 500", async () => {
    const { app, token } = await setup();
    const auth = { authorization: `Bearer ${await token("t_acme", "bob")}` };
    for (const path of [`/api/approvals/${"x".repeat(5_000)}`, "/api/approvals/%00", "/api/approvals?status=bogus", "/api/approvals?limit=-1", "/api/approvals?older_than=yesterday", "/approvals?cursor=AAAA"]) {
      const res = await app.request(path, { headers: auth });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
    }
  });
});

describe("inbox CSRF alternatives", () => {
  it("only a verified bearer token stands in for the CSRF token: Basic, an empty or a forged Bearer beside the session cookie are refused", async () => {
    const { gate, app, token } = await setup();
    const id = await pending(gate, "op-csrf-auth");
    const bob = await token("t_acme", "bob");
    const s = await browser(app, bob, `/approvals/${id}`);
    for (const authorization of ["Basic Ym9iOnNlY3JldA==", "Bearer", "Bearer ", "Token abc", "Bearer not.a.jwt"]) {
      const json = await app.request(`/api/approvals/${id}/decision`, {
        method: "POST",
        headers: { cookie: s.cookie, authorization, "content-type": "application/json" },
        body: JSON.stringify({ decision: "approve" }),
      });
      // A forged Bearer is read as the credential itself (401); every other value leaves the cookie, which needs the CSRF token (403).
      expect(json.status, authorization).toBe(authorization === "Bearer not.a.jwt" ? 401 : 403);
      const html = await app.request(`/approvals/${id}/decide`, { method: "POST", headers: { ...formHeaders(s.cookie), authorization }, body: form({ decision: "approve" }) });
      expect(html.status, authorization).toBe(authorization === "Bearer not.a.jwt" ? 401 : 403);
    }
    expect((await gate.store.getApproval(id))?.status).toBe("pending");
    expect(gate.ledger.effectsOf("op-csrf-auth")).toHaveLength(0);
    // A verified bearer token of the signed-in approver needs no CSRF token.
    const ok = await app.request(`/api/approvals/${id}/decision`, {
      method: "POST",
      headers: { cookie: s.cookie, authorization: `Bearer ${bob}`, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve" }),
    });
    expect(ok.status).toBe(200);
  });

  it("sign-in with a planted CSRF cookie and its token is refused unless the browser marks the form same-origin", async () => {
    const { app, token } = await setup();
    // The attacker fetches the login page: a CSRF cookie and its token, which they plant in the victim's browser.
    const first = await app.request("/login");
    const planted = /toolgate_csrf=([^;]+)/.exec(first.headers.get("set-cookie") ?? "")![1]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await first.text())![1]!;
    const attackers = await token("t_acme", "mallory");
    const login = (extra: Record<string, string>) =>
      app.request("/login", { method: "POST", headers: { ...formHeaders(`toolgate_csrf=${planted}`), ...extra }, body: form({ _csrf: csrf, token: attackers }) });
    for (const headers of [{}, { "sec-fetch-site": "none" }, { origin: "null" }, { "sec-fetch-site": "cross-site" }, { origin: "https://evil.example" }, { "sec-fetch-site": "same-site" }]) {
      const res = await login(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.headers.get("set-cookie") ?? "", JSON.stringify(headers)).not.toContain("toolgate_approver=");
    }
    for (const headers of [{ "sec-fetch-site": "same-origin" }, { origin: "http://localhost" }]) {
      const res = await login(headers);
      expect(res.status, JSON.stringify(headers)).toBe(303);
      expect(res.headers.get("set-cookie") ?? "").toContain("toolgate_approver=");
    }
  });
});

describe("approver token lifetime", () => {
  it("an approver token living longer than the maximum is refused by the inbox, and cannot be issued", async () => {
    const { app } = await setup();
    const { SignJWT } = await import("jose");
    const key = new TextEncoder().encode(SECRET);
    const now = Math.floor(Date.now() / 1000);
    const forged = (iat: number | undefined, exp: number | undefined) => {
      const jwt = new SignJWT({ tenant: "t_acme", roles: ["approver"] }).setProtectedHeader({ alg: "HS256" }).setSubject("bob").setIssuer("toolgate").setAudience("toolgate-approvals");
      if (iat !== undefined) jwt.setIssuedAt(iat);
      if (exp !== undefined) jwt.setExpirationTime(exp);
      return jwt.sign(key);
    };
    const century = 100 * 365 * 86_400;
    for (const [iat, exp, reason] of [
      [now, now + century, /exceeds the maximum of 24h/],
      [undefined, now + century, /beyond the maximum lifetime of 24h/],
      [now, undefined, /no exp claim/],
    ] as const) {
      const jwt = await forged(iat, exp);
      expect((await app.request("/api/approvals", { headers: { authorization: `Bearer ${jwt}` } })).status).toBe(401);
      expect(await checkApproverToken(jwt, SECRET)).toEqual({ ok: false, reason: expect.stringMatching(reason) });
    }
    const day = await forged(now, now + 24 * 3600);
    expect((await app.request("/api/approvals", { headers: { authorization: `Bearer ${day}` } })).status).toBe(200);
    // Configurable: a verifier with a shorter maximum refuses the day-long token.
    const strict = createTokenVerifier({ secret: SECRET, maxLifetimeSeconds: 3600 });
    expect(await strict(new Request("http://x/", { headers: { authorization: `Bearer ${day}` } }))).toBeNull();
    await expect(issueApproverToken({ secret: SECRET, tenant: "t_acme", user: "bob", roles: [], ttlSeconds: 25 * 3600 })).rejects.toThrow(/exceeds the maximum token lifetime/);
    await expect(issueApproverToken({ secret: SECRET, tenant: "t_acme", user: "bob", roles: [], ttlSeconds: 2 * 3600, maxLifetimeSeconds: 3600 })).rejects.toThrow(/exceeds the maximum token lifetime/);
  });
});
