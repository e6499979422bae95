/** io.jwt.verify_* and io.jwt.decode_verify: signatures, key forms, constraints and OPA's error texts. */
import { createHmac, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import { evaluate } from "../wasm-emit/sdk-harness.js";
import { call } from "./helpers.js";

const b64 = (v: unknown): string => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");

type Signer = (data: Buffer) => Buffer;

function token(header: Record<string, unknown>, payload: Record<string, unknown>, signer: Signer): string {
  const signing = `${b64(header)}.${b64(payload)}`;
  return `${signing}.${signer(Buffer.from(signing)).toString("base64url")}`;
}

const hs = (secret: string, hash = "sha256"): Signer => (d) => createHmac(hash, secret).update(d).digest();
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const otherRsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec256 = generateKeyPairSync("ec", { namedCurve: "P-256" });
const ec384 = generateKeyPairSync("ec", { namedCurve: "P-384" });
const ed = generateKeyPairSync("ed25519");
const pem = (k: KeyObject): string => k.export({ format: "pem", type: "spki" }) as string;
const jwk = (k: KeyObject, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ ...(k.export({ format: "jwk" }) as object), ...extra });

const rs = (hash: string, key: KeyObject = rsa.privateKey): Signer => (d) => sign(hash, d, key);
const ps = (hash: string): Signer => (d) => sign(hash, d, { key: rsa.privateKey, padding: 6, saltLength: 32 });
const es = (hash: string, key: KeyObject): Signer => (d) => sign(hash, d, { key, dsaEncoding: "ieee-p1363" });

const claims = { sub: "agent-7", role: "reader" };

describe("io.jwt.verify_*", () => {
  it("HS256/384/512 verify with the secret, not with another", () => {
    const t = token({ alg: "HS256", typ: "JWT" }, claims, hs("s3cret"));
    expect(call("io.jwt.verify_hs256", t, "s3cret")).toEqual({ ok: true });
    expect(call("io.jwt.verify_hs256", t, "other")).toEqual({ ok: false });
    expect(call("io.jwt.verify_hs384", token({ alg: "HS384" }, claims, hs("k", "sha384")), "k")).toEqual({ ok: true });
    expect(call("io.jwt.verify_hs512", token({ alg: "HS512" }, claims, hs("k", "sha512")), "k")).toEqual({ ok: true });
    expect(call("io.jwt.verify_hs512", t, "s3cret")).toEqual({ ok: false });
  });

  it("RS/PS/ES/EdDSA verify with a PEM public key, a JWK or a JWK set", () => {
    expect(call("io.jwt.verify_rs256", token({ alg: "RS256" }, claims, rs("sha256")), pem(rsa.publicKey))).toEqual({ ok: true });
    expect(call("io.jwt.verify_rs512", token({ alg: "RS512" }, claims, rs("sha512")), JSON.stringify(jwk(rsa.publicKey)))).toEqual({ ok: true });
    expect(call("io.jwt.verify_ps256", token({ alg: "PS256" }, claims, ps("sha256")), pem(rsa.publicKey))).toEqual({ ok: true });
    expect(call("io.jwt.verify_es256", token({ alg: "ES256" }, claims, es("sha256", ec256.privateKey)), pem(ec256.publicKey))).toEqual({ ok: true });
    expect(call("io.jwt.verify_es384", token({ alg: "ES384" }, claims, es("sha384", ec384.privateKey)), pem(ec384.publicKey))).toEqual({ ok: true });
    expect(call("io.jwt.verify_eddsa", token({ alg: "EdDSA" }, claims, (d) => sign(null, d, ed.privateKey)), pem(ed.publicKey))).toEqual({ ok: true });
    const set = JSON.stringify({ keys: [jwk(otherRsa.publicKey, { kid: "a" }), jwk(rsa.publicKey, { kid: "b" })] });
    expect(call("io.jwt.verify_rs256", token({ alg: "RS256" }, claims, rs("sha256")), set)).toEqual({ ok: true });
  });

  it("a wrong key, a wrong key type or a tampered payload is false", () => {
    const t = token({ alg: "RS256" }, claims, rs("sha256"));
    expect(call("io.jwt.verify_rs256", t, pem(otherRsa.publicKey))).toEqual({ ok: false });
    expect(call("io.jwt.verify_rs256", t, pem(ec256.publicKey))).toEqual({ ok: false });
    const [h, , s] = t.split(".");
    expect(call("io.jwt.verify_rs256", `${h}.${b64({ sub: "admin" })}.${s}`, pem(rsa.publicKey))).toEqual({ ok: false });
  });

  it("a JWK set member whose kid matches the header's is the only key tried", () => {
    const t = token({ alg: "RS256", kid: "a" }, claims, rs("sha256"));
    const set = JSON.stringify({ keys: [jwk(otherRsa.publicKey, { kid: "a" }), jwk(rsa.publicKey, { kid: "b" })] });
    expect(call("io.jwt.verify_rs256", t, set)).toEqual({ ok: false });
  });

  it("a JWK set member with another alg than the header's is skipped", () => {
    const t = token({ alg: "RS256" }, claims, rs("sha256"));
    expect(call("io.jwt.verify_rs256", t, JSON.stringify({ keys: [jwk(rsa.publicKey, { alg: "RS512" })] }))).toEqual({ ok: false });
    expect(call("io.jwt.verify_rs256", t, JSON.stringify({ keys: [jwk(rsa.publicKey, { alg: "RS256" })] }))).toEqual({ ok: true });
  });

  it.each([
    ["no dots", "abc", "encoded JWT had no period separators"],
    ["two sections", "a.b", "encoded JWT must have 3 sections, found 2"],
    ["bad base64 in the signature", `${b64({ alg: "RS256" })}.${b64(claims)}.a*b`, "illegal base64 data at input byte 1"],
    ["a header that is not JSON", `${b64("nope")}.${b64(claims)}.AQID`, "bad JWT header: invalid JSON"],
    ["a JWE", `${b64({ alg: "RSA-OAEP", enc: "A256GCM" })}.${b64(claims)}.AQID`, "JWT is a JWE object, which is not supported"],
  ])("a malformed token is an error: %s", (_note, t, message) => {
    const out = call("io.jwt.verify_rs256", t, pem(rsa.publicKey));
    expect(out).toMatchObject({ error: expect.stringContaining(`eval_builtin_error: ${message}`) });
  });

  it.each([
    ["a PEM private key", (rsa.privateKey.export({ format: "pem", type: "pkcs8" }) as string), "failed to extract a Key from the PEM certificate"],
    ["data after the PEM block", `${pem(rsa.publicKey)}junk`, "extra data after a PEM certificate block"],
    ["neither PEM nor JSON", "not a key", "failed to parse a JWK key (set)"],
  ])("an unusable key is an error: %s", (_note, key, message) => {
    const out = call("io.jwt.verify_rs256", token({ alg: "RS256" }, claims, rs("sha256")), key);
    expect(out).toMatchObject({ error: expect.stringContaining(`eval_builtin_error: ${message}`) });
  });

  it("operand types are OPA's", () => {
    expect(call("io.jwt.verify_hs256", 1, "k")).toEqual({ error: "eval_type_error: operand 1 must be string but got number" });
    expect(call("io.jwt.verify_rs256", "a.b.c", 2)).toEqual({ error: "eval_type_error: operand 2 must be string but got number" });
  });
});

describe("io.jwt.decode_verify", () => {
  const now = 1_700_000_000;
  const ns = now * 1e9;
  const t = (payload: Record<string, unknown>, header: Record<string, unknown> = { alg: "HS256", typ: "JWT" }): string => token(header, payload, hs("k"));

  it("verified: [true, header, payload]", () => {
    const p = { ...claims, iss: "idp", aud: "toolgate", exp: now + 60, nbf: now - 60 };
    expect(call("io.jwt.decode_verify", t(p), { secret: "k", iss: "idp", aud: "toolgate", time: ns })).toEqual({ ok: [true, { alg: "HS256", typ: "JWT" }, p] });
    const rsT = token({ alg: "RS256" }, claims, rs("sha256"));
    expect(call("io.jwt.decode_verify", rsT, { cert: pem(rsa.publicKey), time: ns })).toEqual({ ok: [true, { alg: "RS256" }, claims] });
  });

  it.each([
    ["a wrong secret", {}, { secret: "x" }],
    ["expired", { exp: now }, {}],
    ["not yet valid", { nbf: now + 1 }, {}],
    ["another issuer", { iss: "evil" }, { iss: "idp" }],
    ["no issuer when one is required", {}, { iss: "idp" }],
    ["another audience", { aud: ["a", "b"] }, { aud: "c" }],
    ["an audience without an aud constraint", { aud: "a" }, {}],
    ["no audience when one is required", {}, { aud: "a" }],
    ["another alg than the constraint's", {}, { alg: "HS512" }],
  ])("unverified ([false, {}, {}]): %s", (_note, payload, constraints) => {
    expect(call("io.jwt.decode_verify", t({ ...claims, ...payload }), { secret: "k", time: ns, ...constraints })).toEqual({ ok: [false, {}, {}] });
  });

  it("an audience in a list is accepted", () => {
    expect(call("io.jwt.decode_verify", t({ aud: ["a", "b"] }), { secret: "k", aud: "b", time: ns })).toEqual({ ok: [true, { alg: "HS256", typ: "JWT" }, { aud: ["a", "b"] }] });
  });

  it("a header without alg, or with an unknown critical parameter, is unverified", () => {
    expect(call("io.jwt.decode_verify", token({ typ: "JWT" }, claims, hs("k")), { secret: "k", time: ns })).toEqual({ ok: [false, {}, {}] });
    expect(call("io.jwt.decode_verify", token({ alg: "HS256", crit: ["x"], x: 1 }, claims, hs("k")), { secret: "k", time: ns })).toEqual({ ok: [false, {}, {}] });
  });

  it("a nested token (cty JWT) is verified with the same constraints", () => {
    const inner = t(claims);
    const outer = token({ alg: "HS256", cty: "JWT" }, {}, hs("k")).split(".");
    const signing = `${outer[0]}.${Buffer.from(inner).toString("base64url")}`;
    const nested = `${signing}.${hs("k")(Buffer.from(signing)).toString("base64url")}`;
    expect(call("io.jwt.decode_verify", nested, { secret: "k", time: ns })).toEqual({ ok: [true, { alg: "HS256", typ: "JWT" }, claims] });
  });

  it.each([
    [{ secret: "k", cert: pem(rsa.publicKey) }, "duplicate key constraints"],
    [{ time: ns }, "no key constraint"],
    [{ secret: "k", foo: 1 }, "unknown token validation constraint: foo"],
    [{ secret: 1 }, "secret constraint: must be a string"],
    [{ cert: 1 }, "cert constraint: must be a string"],
    [{ secret: "k", time: "now" }, "token time constraint: must be a number"],
    [{ secret: "k", time: -1 }, "token time constraint: must not be negative"],
  ])("bad constraints are errors: %j", (constraints, message) => {
    expect(call("io.jwt.decode_verify", t(claims), constraints)).toEqual({ error: `eval_builtin_error: ${message}` });
  });

  it("a non-number exp is an error", () => {
    expect(call("io.jwt.decode_verify", t({ exp: "soon" }), { secret: "k", time: ns })).toEqual({ error: "eval_builtin_error: exp value must be a number" });
  });

  it("without a time constraint it checks exp against the evaluation's clock, end to end through the SDK", async () => {
    const fresh = t({ ...claims, exp: Math.floor(Date.now() / 1000) + 600 });
    const stale = t({ ...claims, exp: Math.floor(Date.now() / 1000) - 600 });
    const rs = (await evaluate({
      modules: ["package t\nimport rego.v1"],
      query: `f := io.jwt.decode_verify("${fresh}", {"secret": "k"}); s := io.jwt.decode_verify("${stale}", {"secret": "k"})`,
    })) as { f: unknown[]; s: unknown[] }[];
    expect(rs[0]!.f[0]).toBe(true);
    expect(rs[0]!.s).toEqual([false, {}, {}]);
    await expect(evaluate({ modules: ["package t"], query: 'x := io.jwt.verify_hs256("nodots", "k")', strict: true })).rejects.toThrow(
      "eval_builtin_error: io.jwt.verify_hs256: encoded JWT had no period separators",
    );
  });
});
