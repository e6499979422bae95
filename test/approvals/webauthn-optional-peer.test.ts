/**
 * `@simplewebauthn/server` is an optional peer: without it a signed decision fails closed,
 * with a reason that names the package to install, and registering a passkey says the same.
 */
import { describe, expect, it, vi } from "vitest";
import type { ApproverCredential } from "../../src/store/store.js";

vi.mock("@simplewebauthn/server", () => {
  throw Object.assign(new Error("Cannot find package '@simplewebauthn/server' imported from decision-signature.js"), { code: "ERR_MODULE_NOT_FOUND" });
});

const { checkAssertion } = await import("../../src/approvals/decision-signature.js");
const { registrationOptions } = await import("../../src/server/passkeys.js");
const { webAuthnMissing } = await import("../../src/approvals/webauthn.js");

const credential: ApproverCredential = {
  credential_id: "cred-1",
  tenant: "t1",
  approver: "alice",
  public_key: Buffer.from("not a key").toString("base64url"),
  counter: 0,
  transports: [],
  origin: "http://localhost",
  rp_id: "localhost",
  created_at_ms: 0,
};
const record = { approval_id: "a1", tenant: "t1", tool: "refund", args_hash: "h", operation_id: "op", decision: "approve", approver: "alice", policy_version: "v", expires_at_ms: 1 };

describe("signed approvals without @simplewebauthn/server", () => {
  it("a signature never verifies without the WebAuthn library, and the reason names the npm install", async () => {
    const check = await checkAssertion(record, { id: "cred-1", response: {} }, credential);
    expect(check).toEqual({ ok: false, problem: webAuthnMissing });
    expect(webAuthnMissing).toContain("npm install @simplewebauthn/server");
  });

  it("registering a passkey without the WebAuthn library throws the npm install", async () => {
    const store = { listApproverCredentials: async () => [] };
    await expect(registrationOptions(store as never, { rpName: "x", rpId: "localhost", origin: "http://localhost" }, { tenant: "t1", user: "alice", roles: [] } as never, "s".repeat(32), 0)).rejects.toThrow(webAuthnMissing);
  });
});
