/** The inbox shows a pending approval's limit figures now, next to the call. */
import { describe, expect, it } from "vitest";
import { manifest } from "../../generated/index.js";
import type { Manifest } from "../../src/manifest.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { createInboxApp, createTokenVerifier, issueApproverToken } from "../../src/server/index.js";
import { alice, makeGate, reserveArgs } from "../runtime/harness.js";

const SECRET = "s".repeat(40);
const CSRF = "c".repeat(40);

const m: Manifest = {
  ...manifest,
  tools: { ...manifest.tools, reserve_funds: { ...manifest.tools["reserve_funds"]!, limits: ["reserved_per_account"] } },
  limits: { reserved_per_account: { name: "reserved_per_account", per: ["account_id"], window_ms: 86_400_000, sum: "amount", max_sum: 5_000, max_count: null, tools: ["reserve_funds"] } },
};

/** Small reservations run; larger ones wait for a human. */
const policy: PolicyEngine = {
  version: "test",
  evaluate: async (i) =>
    Number(i.args["amount"]) > 1_000 && i.approval === null ? { allow: false, reason: "large", requires_approval: true } : { allow: true, reason: "small", requires_approval: false },
};

describe("inbox limit figures", () => {
  it("a pending approval's page shows its limits' figures now: used of the cap in the window", async () => {
    const gate = makeGate({ policy, manifest: m });
    const app = createInboxApp({ approvals: gate.runtime.approvals, verifyApprover: createTokenVerifier({ secret: SECRET }), csrfSecret: CSRF, now: () => gate.clock.now(), limits: { manifest: m, store: gate.store } });
    for (const [i, amount] of [400, 12].entries()) expect((await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(amount), operation_id: `small-${i}` })).outcome).toBe("success");
    const asked = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(3_000), operation_id: "big" });
    if (asked.outcome !== "terminal_failure" || asked.approval_id === undefined) throw new Error(JSON.stringify(asked));
    const jwt = await issueApproverToken({ secret: SECRET, tenant: alice.tenant, user: "bob", roles: ["approver"], nowMs: Date.now() });
    const page = await app.request(`/approvals/${asked.approval_id}`, { headers: { cookie: `toolgate_approver=${jwt}` } });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('<ul id="limits"><li>reserved_per_account: 412 of 5000 amount used in the last 24h (2 calls); this call adds 3000</li></ul>');
  });
});
