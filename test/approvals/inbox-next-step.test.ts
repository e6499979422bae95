/**
 * The inbox says what happens next to an approval's call, from the store's state of the
 * approval and its operation (SQLite and PostgreSQL): waiting for a decision, waiting for
 * the host to resume, running, has run, or will not run; and whether this inbox runs calls
 * itself. It shows the tool's description and effect class, marks approvals about to
 * expire, and has a sign-out button.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { manifest } from "../../generated/index.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { createInboxApp, createTokenVerifier, issueApproverToken } from "../../src/server/index.js";
import { expiringSoon } from "../../src/server/pages.js";
import type { Store } from "../../src/store/store.js";
import { alice, bob, loadShippedPolicy, makeGate, reserveArgs, until } from "../runtime/harness.js";
import type { Gate, GateOptions } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const SECRET = "s".repeat(40);
const CSRF = "c".repeat(40);
let policy: PolicyEngine;
beforeAll(async () => {
  policy = await loadShippedPolicy();
});

function inbox(gate: Gate, opts: { resumeOnDecision: boolean; operations?: boolean }) {
  return createInboxApp({
    approvals: gate.runtime.approvals,
    resumeOnDecision: opts.resumeOnDecision,
    verifyApprover: createTokenVerifier({ secret: SECRET }),
    csrfSecret: CSRF,
    ...(opts.operations === false ? {} : { operations: gate.store }),
    tools: manifest.tools,
    now: () => gate.clock.now(),
  });
}
type App = ReturnType<typeof inbox>;

const bobToken = () => issueApproverToken({ secret: SECRET, tenant: "t_acme", user: "bob", roles: ["approver"], nowMs: Date.now() });

async function pending(gate: Gate, op: string, amount = 1_000): Promise<string> {
  const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(amount), operation_id: op });
  if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
  return env.approval_id;
}

/** A signed-in browser: session and CSRF cookies and the page's CSRF token. */
async function open(app: App, jwt: string, path: string) {
  const res = await app.request(path, { headers: { cookie: `toolgate_approver=${jwt}` } });
  const csrfCookie = /toolgate_csrf=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1] ?? "";
  const html = await res.text();
  return { status: res.status, html, cookie: `toolgate_approver=${jwt}; toolgate_csrf=${csrfCookie}`, csrf: /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "" };
}

const nextStepOf = (html: string): { state: string; text: string } => {
  const m = /id="next-step" data-state="([a-z_]+)"><strong>What happens next:<\/strong> ([^<]*)<\/div>/.exec(html);
  if (m === null) throw new Error(`no next step on the page:\n${html.slice(0, 1_500)}`);
  return { state: m[1]!, text: m[2]!.replace(/&#39;/g, "'") };
};

async function decideByForm(app: App, jwt: string, id: string, decision: string): Promise<string> {
  const s = await open(app, jwt, `/approvals/${id}`);
  const res = await app.request(`/approvals/${id}/decide`, {
    method: "POST",
    headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: s.csrf, decision }).toString(),
  });
  expect(res.status).toBe(303);
  return (await open(app, jwt, res.headers.get("location")!)).html;
}

describeEachStore("inbox: what happens next", (stores) => {
  const gateOn = async (extra: Partial<GateOptions> = {}): Promise<{ gate: Gate; store: Store }> => {
    const store = await stores.fresh();
    return { gate: makeGate({ policy, store, ...extra }), store };
  };

  it("after a decision the page says whether the call waits for the host to resume, has run, or will not run", async () => {
    const { gate } = await gateOn();
    const app = inbox(gate, { resumeOnDecision: false });
    const jwt = await bobToken();

    const id = await pending(gate, "op-next-approve");
    const waiting = nextStepOf((await open(app, jwt, `/approvals/${id}`)).html);
    expect(waiting.state).toBe("awaiting_decision");
    expect(waiting.text).toContain("this inbox does not run calls: the host resumes it");
    const approvedPage = nextStepOf(await decideByForm(app, jwt, id, "approve"));
    expect(approvedPage).toEqual({ state: "awaiting_resume", text: `Approved; the call has not run yet. It waits for the host to resume it or the agent to retry with approval id ${id}.` });
    expect(gate.ledger.effectsOf("op-next-approve")).toHaveLength(0);
    expect(await gate.runtime.approvals.resume(id)).toMatchObject({ ok: true, envelope: { outcome: "success" } });
    expect(nextStepOf((await open(app, jwt, `/approvals/${id}`)).html)).toEqual({ state: "ran", text: "The call has run: success." });

    const rejected = await pending(gate, "op-next-reject", 900);
    expect(nextStepOf(await decideByForm(app, jwt, rejected, "reject"))).toEqual({ state: "will_not_run", text: "The call will not run: the approval was rejected." });
    // The agent's refused retry does not make it look as if the call ran.
    const refused = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(900), operation_id: "op-next-reject", approval_id: rejected });
    expect(refused.outcome).toBe("terminal_failure");
    expect(nextStepOf((await open(app, jwt, `/approvals/${rejected}`)).html).state).toBe("will_not_run");

    const expiring = await pending(gate, "op-next-expire", 800);
    gate.clock.advance(16 * 60_000);
    expect(nextStepOf((await open(app, jwt, `/approvals/${expiring}`)).html)).toEqual({ state: "will_not_run", text: "The call will not run: the approval expired undecided." });

    // The JSON API carries the same answer.
    const api = (await (await app.request(`/api/approvals/${id}`, { headers: { authorization: `Bearer ${jwt}` } })).json()) as { next_step: unknown };
    expect(api.next_step).toMatchObject({ state: "ran", approval_id: id, outcome: "success" });
  });

  it("an edited approval's page follows the edited call: waiting for the host, then run", async () => {
    const { gate } = await gateOn();
    const app = inbox(gate, { resumeOnDecision: false });
    const jwt = await bobToken();
    const id = await pending(gate, "op-next-edit", 1_000);
    const res = await app.request(`/api/approvals/${id}/decision`, {
      method: "POST",
      headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" },
      body: JSON.stringify({ decision: "edit", edited_args: reserveArgs(600) }),
    });
    const body = (await res.json()) as { next_step: { state: string; approval_id: string } };
    expect(body.next_step.state).toBe("awaiting_resume");
    expect(body.next_step.approval_id).not.toBe(id);
    expect(nextStepOf((await open(app, jwt, `/approvals/${id}`)).html).state).toBe("awaiting_resume");
    expect(await gate.runtime.approvals.resume(id)).toMatchObject({ ok: true, envelope: { outcome: "success" } });
    expect(nextStepOf((await open(app, jwt, `/approvals/${id}`)).html)).toEqual({ state: "ran", text: "The call has run: success." });
  });

  it("while the host runs an approved call the page says it is running, then that it ran", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let started = false;
    const { gate } = await gateOn({
      handlers: (base) => ({
        reserve_funds: async (args, ctx) => {
          started = true;
          await held;
          return base.reserve_funds(args, ctx);
        },
      }),
    });
    const app = inbox(gate, { resumeOnDecision: false });
    const jwt = await bobToken();
    const id = await pending(gate, "op-next-running");
    expect((await gate.runtime.approvals.decide(id, { decision: "approve" }, bob)).ok).toBe(true);
    const resumed = gate.runtime.approvals.resume(id);
    await until(() => started);
    expect(nextStepOf((await open(app, jwt, `/approvals/${id}`)).html)).toEqual({ state: "running", text: "The call is running on the host now." });
    release();
    expect(await resumed).toMatchObject({ ok: true, envelope: { outcome: "success" } });
    expect(nextStepOf((await open(app, jwt, `/approvals/${id}`)).html).state).toBe("ran");
  });

  it("an inbox that runs calls on approval says so before the decision and that the call ran after it", async () => {
    const { gate } = await gateOn();
    const app = inbox(gate, { resumeOnDecision: true });
    const jwt = await bobToken();
    const id = await pending(gate, "op-next-runs");
    expect(nextStepOf((await open(app, jwt, `/approvals/${id}`)).html).text).toBe(
      "Waiting for a decision. Once approved, this inbox runs it on the host as soon as it is approved (exactly once, as resume does).",
    );
    expect(nextStepOf(await decideByForm(app, jwt, id, "approve"))).toEqual({ state: "ran", text: "The call has run: success." });
    expect(gate.ledger.effectsOf("op-next-runs")).toHaveLength(1);
  });

  it("without the store's operation records the page still tells a consumed approval's call has run", async () => {
    const { gate } = await gateOn();
    const app = inbox(gate, { resumeOnDecision: false, operations: false });
    const jwt = await bobToken();
    const id = await pending(gate, "op-next-noops");
    expect(nextStepOf(await decideByForm(app, jwt, id, "approve")).state).toBe("awaiting_resume");
    await gate.runtime.approvals.resume(id);
    expect(nextStepOf((await open(app, jwt, `/approvals/${id}`)).html)).toEqual({ state: "ran", text: "The call has run; its outcome is recorded." });
  });
});

describe("inbox: the tool, expiry marks and sign-out", () => {
  it("the approval page and the list show the tool's description and effect class", async () => {
    const gate = makeGate({ policy });
    const app = inbox(gate, { resumeOnDecision: false });
    const jwt = await bobToken();
    const id = await pending(gate, "op-tool-info");
    const detail = await open(app, jwt, `/approvals/${id}`);
    const tool = manifest.tools["reserve_funds"]!;
    expect(detail.html).toContain(`<p id="tool-description">${tool.description}</p>`);
    expect(detail.html).toContain(`<dd id="tool-effect">reversible_write</dd>`);
    const list = await open(app, jwt, "/approvals");
    const row = new RegExp(`<tr data-approval="${id}"[^>]*>.*?</tr>`, "s").exec(list.html)?.[0] ?? "";
    expect(row).toContain('<span class="effect reversible_write">reversible_write</span>');
    expect(row).toContain(`<div class="description">${tool.description}</div>`);
  });

  it("an approval with under 20% of its time to live or under 2 minutes left is marked as expiring, on its page and in the list", async () => {
    const gate = makeGate({ policy });
    const app = inbox(gate, { resumeOnDecision: false });
    const jwt = await bobToken();
    const id = await pending(gate, "op-expiring"); // reserve_funds: ttl 15m, so the mark comes at 3m left
    const marked = async () => {
      const detail = (await open(app, jwt, `/approvals/${id}`)).html;
      const list = (await open(app, jwt, "/approvals")).html;
      return { detail: /id="expiring">expires in ([^<]+): decide now/.exec(detail)?.[1] ?? null, list: list.includes(`<tr data-approval="${id}" class="expiring-soon">`) };
    };
    expect(await marked()).toEqual({ detail: null, list: false });
    gate.clock.advance(11 * 60_000); // 4m left: 27%
    expect(await marked()).toEqual({ detail: null, list: false });
    gate.clock.advance(61_000 + 30_000); // 2m29s left: 17%
    expect(await marked()).toEqual({ detail: "2m 29s", list: true });
    gate.clock.advance(150_000); // past expiry: expired, no longer expiring
    expect(await marked()).toEqual({ detail: null, list: false });
    // The 2-minute floor for short-lived approvals, and the 20% rule for long ones.
    const a = (ttl: number, left: number) => ({ status: "pending", created_at_ms: 0, expires_at_ms: ttl, nowMs: ttl - left });
    const at = (x: ReturnType<typeof a>) => expiringSoon(x, x.nowMs);
    expect(at(a(5 * 60_000, 119_000))).toBe(true); // 40% left, but under 2 minutes
    expect(at(a(5 * 60_000, 150_000))).toBe(false);
    expect(at(a(24 * 3_600_000, 3_600_000))).toBe(true); // an hour, but 4% of a day
    expect(at(a(30 * 60_000, 5 * 60_000))).toBe(true);
    expect(at(a(30 * 60_000, 7 * 60_000))).toBe(false);
    expect(expiringSoon({ status: "approved", created_at_ms: 0, expires_at_ms: 1_000 }, 999)).toBe(false);
  });

  it("the sign-out button ends the session: it posts /logout with its CSRF token, and the inbox asks to sign in again", async () => {
    const gate = makeGate({ policy });
    const app = inbox(gate, { resumeOnDecision: false });
    const jwt = await bobToken();
    const id = await pending(gate, "op-sign-out");
    for (const path of ["/approvals", `/approvals/${id}`]) {
      const page = await open(app, jwt, path);
      const form = /<form method="post" action="\/logout"><input type="hidden" name="_csrf" value="([^"]+)"><button id="sign-out">Sign out<\/button><\/form>/.exec(page.html);
      expect(form, path).not.toBeNull();
      const forged = await app.request("/logout", { method: "POST", headers: { cookie: page.cookie, "content-type": "application/x-www-form-urlencoded" }, body: "_csrf=forged" });
      expect(forged.status).toBe(403);
      const out = await app.request("/logout", { method: "POST", headers: { cookie: page.cookie, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ _csrf: form![1]! }).toString() });
      expect(out.status).toBe(303);
      expect(out.headers.get("location")).toBe("/login");
      expect(out.headers.get("set-cookie")).toMatch(/toolgate_approver=; Path=\/; Max-Age=0/);
    }
    // An inbox without its own login (the host authenticates) shows no sign-out button.
    const hosted = createInboxApp({ approvals: gate.runtime.approvals, verifyApprover: createTokenVerifier({ secret: SECRET }), csrfSecret: CSRF, login: false });
    expect((await open(hosted, jwt, "/approvals")).html).not.toContain('id="sign-out"');
  });
});
