/**
 * Passkey-signed decisions in Chromium with a virtual authenticator (the DevTools protocol's
 * WebAuthn domain through playwright-core): an approver registers a passkey in the inbox,
 * approves a signed tool's call with it (the assertion's challenge is the decision record's
 * digest), the host runs the call once, and the decision verifies offline from the store; a
 * tampered signature and an unsigned decision where one is required are refused, and an
 * unsigned approval never releases the call.
 */
import { chromium } from "playwright-core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifest } from "../../generated/index.js";
import { verifyApprovalSignatures } from "../../src/approvals/verify.js";
import type { Manifest } from "../../src/manifest.js";
import { createInboxApp, createTokenVerifier, issueApproverToken, listenInbox } from "../../src/server/index.js";
import type { RunningInbox } from "../../src/server/index.js";
import { manualClock } from "../../src/testing/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs, withTool } from "../runtime/harness.js";
import type { Gate } from "../runtime/harness.js";
import { browserRequired, chromiumArgs, findChromium } from "./find-chromium.js";

const executable = findChromium();
if (executable === null) {
  const msg = "no Chromium found (install Debian's chromium: apt-get install -y chromium, or set TOOLGATE_CHROMIUM)";
  if (browserRequired()) throw new Error(`passkeys browser test: ${msg}; a browser is required here (TOOLGATE_REQUIRE_BROWSER / CI)`);
  console.warn(`[passkeys browser test] SKIPPED: ${msg}`);
}

const SECRET = "passkey-browser-secret-".repeat(3);
const signedManifest: Manifest = withTool("reserve_funds", { approval: { ...manifest.tools["reserve_funds"]!.approval!, signed: true } });

describe.skipIf(executable === null)("passkey-signed decisions in Chromium", () => {
  let gate: Gate;
  let server: RunningInbox;
  /** WebAuthn needs a domain as RP id: the inbox is reached as localhost, not 127.0.0.1. */
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let bob: Page;

  beforeAll(async () => {
    gate = makeGate({ policy: await loadShippedPolicy(), clock: manualClock(Date.now()), manifest: signedManifest });
    server = await listenInbox(
      createInboxApp({
        approvals: gate.runtime.approvals,
        verifyApprover: createTokenVerifier({ secret: SECRET }),
        csrfSecret: `${SECRET}-csrf`,
        now: () => gate.clock.now(),
        onError: () => undefined,
        operations: gate.store,
        passkeys: gate.store,
        tools: signedManifest.tools,
      }),
    );
    base = `http://localhost:${server.port}`;
    browser = await chromium.launch({ executablePath: executable!, headless: true, args: [...chromiumArgs, "--host-resolver-rules=MAP localhost 127.0.0.1"] });
    context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
    bob = await context.newPage();
    const cdp = await context.newCDPSession(bob);
    await cdp.send("WebAuthn.enable", { enableUI: false });
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await bob.goto(`${base}/login`);
    await bob.fill("#token", await issueApproverToken({ secret: SECRET, tenant: "t_acme", user: "bob", roles: ["approver"], nowMs: Date.now() }));
    await Promise.all([bob.waitForURL(`${base}/approvals`), bob.click("#sign-in")]);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  async function agentWrite(op: string, amount: number): Promise<string> {
    const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(amount), operation_id: op });
    if (env.outcome !== "terminal_failure" || env.approval_id === undefined) throw new Error(JSON.stringify(env));
    return env.approval_id;
  }

  it("an approver registers a passkey, approves with it, the call runs once, and the signature verifies offline", async () => {
    await bob.goto(`${base}/passkeys`);
    expect(await bob.locator("#no-passkeys").count()).toBe(1);
    await Promise.all([bob.waitForSelector("#passkeys"), bob.click("#register-passkey")]);
    const creds = await gate.store.listApproverCredentials("t_acme", "bob");
    expect(creds).toHaveLength(1);
    expect(creds[0]).toMatchObject({ rp_id: "localhost", origin: base });

    const id = await agentWrite("op-pk-approve", 4_200);
    await bob.goto(`${base}/approvals/${id}`);
    expect(await bob.locator("#signed-note").count()).toBe(1);
    await Promise.all([bob.waitForURL(/done=approve/), bob.click("#approve")]);
    expect(await bob.locator("#flash").innerText()).toContain("The host ran the call.");
    expect(gate.ledger.effectsOf("op-pk-approve")).toHaveLength(1);

    const approval = (await gate.store.getApproval(id))!;
    const sigs = await gate.store.listDecisionSignatures(id);
    expect(sigs).toHaveLength(1);
    expect(sigs[0]!.credential_id).toBe(creds[0]!.credential_id);
    const report = await verifyApprovalSignatures(gate.store, signedManifest, approval);
    expect(report).toMatchObject({ ok: true, decisions: [{ decision: "approve", approver: "bob", state: "valid" }] });
  });

  it("a tampered signature is refused: the approval stays pending and nothing runs", async () => {
    const id = await agentWrite("op-pk-tampered", 3_100);
    await bob.goto(`${base}/approvals/${id}`);
    await bob.route(`${base}/approvals/${id}/decide`, async (route) => {
      const form = new URLSearchParams(route.request().postData() ?? "");
      const assertion = JSON.parse(form.get("assertion") ?? "{}") as { response: { signature: string } };
      const sig = Buffer.from(assertion.response.signature, "base64url");
      sig[sig.length - 1] = sig[sig.length - 1]! ^ 0x01;
      assertion.response.signature = sig.toString("base64url");
      form.set("assertion", JSON.stringify(assertion));
      await route.continue({ postData: form.toString() });
    });
    const [res] = await Promise.all([bob.waitForResponse((r) => r.url().endsWith("/decide")), bob.click("#approve")]);
    await bob.unroute(`${base}/approvals/${id}/decide`);
    expect(res.status()).toBe(403);
    expect(await bob.locator("#error").innerText()).toContain("signature is invalid");
    expect((await gate.store.getApproval(id))?.status).toBe("pending");
    expect(gate.ledger.effectsOf("op-pk-tampered")).toHaveLength(0);
  });

  it("an unsigned decision where a signature is required is refused, and an unsigned approval never releases the call", async () => {
    const id = await agentWrite("op-pk-unsigned", 2_500);
    await bob.goto(`${base}/approvals/${id}`);
    const csrf = await bob.locator("input[name=_csrf]").first().getAttribute("value");
    // The form posted without the script's assertion (as a page without JavaScript would).
    const res = await bob.request.post(`${base}/approvals/${id}/decide`, { form: { _csrf: csrf ?? "", decision: "approve" }, headers: { origin: base, "sec-fetch-site": "same-origin" } });
    expect(res.status()).toBe(403);
    expect(await res.text()).toContain("passkey-signed");
    expect((await gate.store.getApproval(id))?.status).toBe("pending");
    // Approved without a signature elsewhere (the CLI): the call is still refused.
    expect((await gate.runtime.approvals.decide(id, { decision: "approve" }, { tenant: "t_acme", user: "bob", roles: ["approver"] })).ok).toBe(true);
    const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(2_500), operation_id: "op-pk-unsigned", approval_id: id });
    expect(env).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: expect.stringContaining("approval_signature_missing") });
    expect(gate.ledger.effectsOf("op-pk-unsigned")).toHaveLength(0);
    expect((await verifyApprovalSignatures(gate.store, signedManifest, (await gate.store.getApproval(id))!)).ok).toBe(false);
  });
});
