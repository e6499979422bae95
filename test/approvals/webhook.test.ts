/**
 * Signed webhooks for new pending approvals: the signature verifies (and fails on a
 * changed body, another secret or an old timestamp); the runtime hook posts once per
 * new approval with a link to its page; the store-polling announcer announces each
 * pending approval once and retries after a failed post.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import { approvalPageUrl } from "../../src/approvals/index.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { createRuntime } from "../../src/runtime/index.js";
import { isWebhookDeliveryError, pendingApprovalWebhook, postWebhook, signWebhook, startAnnouncer, verifyWebhookSignature } from "../../src/server/index.js";
import type { PendingApprovalWebhookBody } from "../../src/server/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";

const SECRET = "webhook-secret-0123456789";

interface Received {
  readonly body: string;
  readonly signature: string | null;
}

let policy: PolicyEngine;
const received: Received[] = [];
let failNext = 0;
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString("utf8")));
  req.on("end", () => {
    if (failNext > 0) {
      failNext -= 1;
      res.writeHead(503).end();
      return;
    }
    received.push({ body, signature: (req.headers["x-toolgate-signature"] as string | undefined) ?? null });
    res.writeHead(204).end();
  });
});
let url = "";
beforeAll(async () => {
  policy = await loadShippedPolicy();
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

describe("webhook signatures", () => {
  it("verify with the secret and the body; fail for another body, secret or a stale time", () => {
    const body = JSON.stringify({ a: 1 });
    const now = Date.now();
    const sig = signWebhook(SECRET, body, now);
    expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(SECRET, body, sig, now)).toBe(true);
    expect(verifyWebhookSignature(SECRET, `${body} `, sig, now)).toBe(false);
    expect(verifyWebhookSignature("another-secret-000000000", body, sig, now)).toBe(false);
    expect(verifyWebhookSignature(SECRET, body, sig, now + 301_000)).toBe(false);
    expect(verifyWebhookSignature(SECRET, body, null, now)).toBe(false);
    expect(verifyWebhookSignature(SECRET, body, "garbage", now)).toBe(false);
  });

  it("approvalPageUrl builds <base>/approvals/<id> with or without a trailing slash", () => {
    expect(approvalPageUrl("https://inbox.example/", "apr_1")).toBe("https://inbox.example/approvals/apr_1");
    expect(approvalPageUrl("https://x.example/tg", "a/b")).toBe("https://x.example/tg/approvals/a%2Fb");
  });
});

describe("announcing new pending approvals", () => {
  it("the runtime's onPendingApproval webhook posts once per new approval, signed, with the page link", async () => {
    received.length = 0;
    const g = makeGate({ policy });
    const runtime = createRuntime({
      manifest,
      validators,
      handlers: g.handlers,
      policy,
      store: g.store,
      clock: g.clock,
      onPendingApproval: pendingApprovalWebhook({ url, secret: SECRET, baseUrl: "https://inbox.example" }),
    });
    const env = await runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(321), operation_id: "op-wh" });
    await runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(321), operation_id: "op-wh" });
    expect(received).toHaveLength(1);
    const { body, signature } = received[0]!;
    expect(verifyWebhookSignature(SECRET, body, signature)).toBe(true);
    const parsed = JSON.parse(body) as PendingApprovalWebhookBody;
    const id = env.outcome === "terminal_failure" ? env.approval_id : undefined;
    expect(parsed).toMatchObject({
      type: "approval.pending",
      approval_id: id,
      tenant: alice.tenant,
      tool: "reserve_funds",
      requested_by: "alice",
      preview: { amount: 321 },
      policy_reason: "approval_required",
      url: `https://inbox.example/approvals/${id}`,
    });
  });

  it("a failing webhook never changes the envelope", async () => {
    const g = makeGate({ policy });
    const runtime = createRuntime({
      manifest,
      validators,
      handlers: g.handlers,
      policy,
      store: g.store,
      clock: g.clock,
      onError: () => undefined,
      onPendingApproval: pendingApprovalWebhook({ url: "http://127.0.0.1:1/nothing-listens", secret: SECRET, baseUrl: "https://x" }),
    });
    const env = await runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(5), operation_id: "op-wh-fail" });
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
  });

  it("the announcer posts each pending approval once, skips decided ones, and retries a failed post", async () => {
    received.length = 0;
    const store = openSqliteStore(":memory:");
    const g = makeGate({ policy, store });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const env = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(10 + i), operation_id: `op-ann-${i}` });
      if (env.outcome === "terminal_failure" && env.approval_id !== undefined) ids.push(env.approval_id);
    }
    expect(await g.runtime.approvals.decide(ids[1]!, { decision: "reject" }, { tenant: alice.tenant, user: "bob", roles: ["approver"] })).toMatchObject({ ok: true });
    const errors: unknown[] = [];
    const announcer = startAnnouncer({ store, url, secret: SECRET, baseUrl: "http://inbox", intervalMs: 60_000, onError: (e) => errors.push(e) });
    try {
      failNext = 1;
      expect(await announcer.tick()).toBe(1);
      expect(errors).toHaveLength(1);
      expect(await announcer.tick()).toBe(1);
      expect(await announcer.tick()).toBe(0);
      const announced = received.map((r) => (JSON.parse(r.body) as PendingApprovalWebhookBody).approval_id).sort();
      expect(announced).toEqual([ids[0], ids[2]].sort());
      for (const r of received) expect(verifyWebhookSignature(SECRET, r.body, r.signature)).toBe(true);
    } finally {
      await announcer.stop();
      await store.close();
    }
  });
});

describe("webhook redirects", () => {
  it("a redirect is never followed: the signed body and signature reach only the configured URL, and the delivery fails with a clear error", async () => {
    const elsewhere: Received[] = [];
    const target = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        elsewhere.push({ body, signature: (req.headers["x-toolgate-signature"] as string | undefined) ?? null });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/stolen`;
    const redirector = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(307, { location: targetUrl }).end());
    });
    await new Promise<void>((r) => redirector.listen(0, "127.0.0.1", r));
    const hook = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/hook`;
    const store = openSqliteStore(":memory:");
    try {
      const g = makeGate({ policy, store });
      const env = await g.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(42), operation_id: "op-redirect" });
      if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
      const approval = (await store.getApproval(env.approval_id))!;
      const call = (await store.getPendingCall(env.approval_id))!;
      const err = await postWebhook({ url: hook, secret: SECRET, baseUrl: "http://inbox" }, approval, call).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isWebhookDeliveryError(err)).toBe(true);
      expect((err as Error).message).toMatch(new RegExp(`answered 307 redirect to ${targetUrl.replace(/[.]/g, "\\.")}: not followed`));
      // The announcer treats it as a failed delivery: reported, unmarked, never posted elsewhere.
      const errors: unknown[] = [];
      const announcer = startAnnouncer({ store, url: hook, secret: SECRET, baseUrl: "http://inbox", intervalMs: 60_000, onError: (e) => errors.push(e) });
      try {
        expect(await announcer.tick()).toBe(0);
        expect(errors.map((e) => (e as Error).message)).toEqual([expect.stringContaining("answered 307 redirect")]);
        expect(await store.claimAnnouncements(Date.now(), 50)).toHaveLength(1);
      } finally {
        await announcer.stop();
      }
      expect(elsewhere).toEqual([]);
    } finally {
      await store.close();
      await new Promise<void>((r) => redirector.close(() => r()));
      await new Promise<void>((r) => target.close(() => r()));
    }
  });
});
