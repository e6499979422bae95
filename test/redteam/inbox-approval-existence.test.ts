/**
 * The inbox does not tell an approver of another tenant whether an approval id exists: its
 * page, its JSON detail and a decision on it are answered exactly as for an id that exists
 * nowhere, and nothing is decided. On both stores.
 */
import { expect, it } from "vitest";
import { createInboxApp, createTokenVerifier, issueApproverToken } from "../../src/server/index.js";
import { alice, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const SECRET = "s".repeat(40);
const CSRF = "c".repeat(40);
const MISSING = "apr_00000000-0000-4000-8000-000000000000";

describeEachStore("inbox approval ids", (stores) => {
  it("an approver of another tenant gets the same answer for an existing approval id as for one that does not exist, and decides nothing", async () => {
    const gate = makeGate({ policy: await loadShippedPolicy(), store: await stores.fresh() });
    const app = createInboxApp({ approvals: gate.runtime.approvals, verifyApprover: createTokenVerifier({ secret: SECRET }), csrfSecret: CSRF, now: () => gate.clock.now() });
    const env = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: "op-victim" });
    const victim = env.outcome === "terminal_failure" ? (env.approval_id ?? "") : "";
    expect(victim).toMatch(/^apr_/);
    const eve = await issueApproverToken({ secret: SECRET, tenant: "t_evil", user: "eve", roles: ["approver"], nowMs: Date.now() });
    const bearer = { authorization: `Bearer ${eve}` };

    /** Status and body of each surface for one id, the id written as ID. */
    const answers = async (id: string): Promise<string[]> => {
      const out: string[] = [];
      const seen = async (res: Response) => out.push(`${res.status} ${(await res.text()).replaceAll(encodeURIComponent(id), "ID").replaceAll(id, "ID")}`);
      await seen(await app.request(`/api/approvals/${encodeURIComponent(id)}`, { headers: bearer }));
      await seen(await app.request(`/approvals/${encodeURIComponent(id)}`, { headers: { cookie: `toolgate_approver=${eve}`, accept: "text/html" } }));
      for (const decision of ["approve", "reject", "revoke"]) {
        await seen(
          await app.request(`/api/approvals/${encodeURIComponent(id)}/decision`, {
            method: "POST",
            headers: { ...bearer, "content-type": "application/json" },
            body: JSON.stringify({ decision }),
          }),
        );
      }
      return out;
    };
    const forVictim = await answers(victim);
    expect(forVictim[0]).toMatch(/^404 /);
    expect(forVictim).toEqual(await answers(MISSING));
    expect((await gate.store.getApproval(victim))?.status).toBe("pending");
  });
});
