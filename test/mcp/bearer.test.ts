/**
 * MCP bearer tokens have a maximum lifetime: a token must carry `exp`, and neither
 * `exp - iat` nor `exp - now` may exceed the maximum (24h by default, configurable).
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { BearerTokenError, verifyBearerToken } from "../../src/mcp/bearer.js";

const secret = new TextEncoder().encode("bearer-lifetime-test-secret-0123456789");
const NOW = 1_800_000_000; // seconds
const nowMs = NOW * 1000;
const claims = { tenant: "t_acme", sub: "alice", roles: ["agent"] };

const sign = (extra: { iat?: number; exp?: number }) => {
  const jwt = new SignJWT({ ...claims, ...extra }).setProtectedHeader({ alg: "HS256" });
  return jwt.sign(secret);
};
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => (e instanceof BearerTokenError ? e.message : `unexpected ${String(e)}`),
  );

describe("MCP bearer token lifetime", () => {
  it("a bearer token living longer than the maximum is refused with the reason, with or without iat", async () => {
    const century = 100 * 365 * 86_400;
    expect(await refusal(verifyBearerToken(await sign({ iat: NOW, exp: NOW + century }), secret, { nowMs }))).toMatch(/lifetime \(exp - iat = \d+h\) exceeds the maximum of 24h/);
    expect(await refusal(verifyBearerToken(await sign({ exp: NOW + century }), secret, { nowMs }))).toMatch(/beyond the maximum lifetime of 24h/);
    // An iat in the future cannot stretch the window.
    expect(await refusal(verifyBearerToken(await sign({ iat: NOW + century - 3600, exp: NOW + century }), secret, { nowMs }))).toMatch(/iat lies in the future/);
    expect(await refusal(verifyBearerToken(await sign({ iat: NOW }), secret, { nowMs }))).toMatch(/exp/);
    expect(await refusal(verifyBearerToken(await sign({ iat: NOW, exp: NOW + 24 * 3600 + 1 }), secret, { nowMs }))).toMatch(/exceeds the maximum/);
  });

  it("a bearer token within the maximum is accepted, and the maximum is configurable", async () => {
    const day = await sign({ iat: NOW, exp: NOW + 24 * 3600 });
    expect((await verifyBearerToken(day, secret, { nowMs })).extra?.["principal"]).toEqual({ tenant: "t_acme", user: "alice", roles: ["agent"], run_id: null });
    expect(await refusal(verifyBearerToken(day, secret, { nowMs, maxLifetimeSeconds: 3600 }))).toMatch(/exceeds the maximum of 1h/);
    const week = await sign({ iat: NOW, exp: NOW + 7 * 86_400 });
    await expect(verifyBearerToken(week, secret, { nowMs, maxLifetimeSeconds: 7 * 86_400 })).resolves.toBeDefined();
    expect(await refusal(verifyBearerToken(day, secret, { nowMs, maxLifetimeSeconds: 0 }))).toMatch(/positive whole number/);
  });
});
