/**
 * A list filter the stores cannot hold alike (a NUL, an unpaired surrogate) is a typed
 * invalid_request on both stores, through the library and the inbox's JSON API: never a driver
 * error or a 500 on one store and an empty page on the other.
 */
import { expect, it } from "vitest";
import { listApprovals } from "../../src/approvals/list.js";
import { isApprovalsError } from "../../src/approvals/errors.js";
import { createInboxApp, createTokenVerifier, issueApproverToken } from "../../src/server/index.js";
import { loadShippedPolicy, makeGate } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const SECRET = "s".repeat(40);
const CSRF = "c".repeat(40);

describeEachStore("approvals list filters", (stores) => {
  it("a NUL or an unpaired surrogate in a list filter is invalid_request on every store, through the library and the inbox API (400)", async () => {
    const gate = makeGate({ policy: await loadShippedPolicy(), store: await stores.fresh() });
    for (const bad of ["a\u0000b", "x\ud800"]) {
      for (const field of ["tool", "requested_by"] as const) {
        const err = await listApprovals(gate.store, { tenant: "t_acme", [field]: bad }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(isApprovalsError(err) ? err.code : String(err)).toBe("invalid_request");
      }
    }
    const app = createInboxApp({ approvals: gate.runtime.approvals, verifyApprover: createTokenVerifier({ secret: SECRET }), csrfSecret: CSRF, onError: () => undefined });
    const bob = await issueApproverToken({ secret: SECRET, tenant: "t_acme", user: "bob", roles: ["approver"], nowMs: Date.now() });
    for (const query of ["tool=a%00b", "requested_by=a%00b"]) {
      const res = await app.request(`/api/approvals?${query}`, { headers: { authorization: `Bearer ${bob}` } });
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(await res.json())).toContain("without NUL characters");
    }
  });
});
