/** io.jwt.encode_sign / encode_sign_raw: tokens the verifying builtins accept, Go's JSON serialisation, OPA's errors. */
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { evaluate } from "../wasm-emit/sdk-harness.js";
import { call } from "./helpers.js";

const oct = { kty: "oct", k: Buffer.from("42").toString("base64url") };
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const ed = generateKeyPairSync("ed25519");
const priv = (k: typeof rsa.privateKey): Record<string, unknown> => k.export({ format: "jwk" }) as Record<string, unknown>;
const pub = (k: typeof rsa.publicKey): string => k.export({ format: "pem", type: "spki" }) as string;
const ok = (o: unknown): string => (o as { ok: string }).ok;

describe("io.jwt.encode_sign", () => {
  it("HS256: the header and payload as Go's json.Marshal writes them (sorted keys, no spaces)", () => {
    const t = ok(call("io.jwt.encode_sign", { typ: "JWT", alg: "HS256" }, { sub: "a<b", iss: "x" }, oct));
    const [h, p] = t.split(".");
    expect(Buffer.from(h!, "base64url").toString()).toBe('{"alg":"HS256","typ":"JWT"}');
    expect(Buffer.from(p!, "base64url").toString()).toBe('{"iss":"x","sub":"a\\u003cb"}');
    expect(call("io.jwt.verify_hs256", t, "42")).toEqual({ ok: true });
  });

  it.each([
    ["RS256", () => priv(rsa.privateKey), "io.jwt.verify_rs256", pub(rsa.publicKey)],
    ["PS384", () => priv(rsa.privateKey), "io.jwt.verify_ps384", pub(rsa.publicKey)],
    ["ES256", () => priv(ec.privateKey), "io.jwt.verify_es256", pub(ec.publicKey)],
    ["EdDSA", () => priv(ed.privateKey), "io.jwt.verify_eddsa", pub(ed.publicKey)],
  ])("%s tokens verify with the public key", (alg, key, verify, cert) => {
    const t = ok(call("io.jwt.encode_sign", { alg }, { sub: "agent" }, key()));
    expect(call(verify, t, cert)).toEqual({ ok: true });
  });

  it("encode_sign_raw signs the texts as given", () => {
    const t = ok(call("io.jwt.encode_sign_raw", '{"alg":"HS256"}', '{"b": 1, "a": 2}', JSON.stringify({ keys: [oct] })));
    expect(Buffer.from(t.split(".")[1]!, "base64url").toString()).toBe('{"b": 1, "a": 2}');
    expect(call("io.jwt.decode_verify", t, { secret: "42" })).toEqual({ ok: [true, { alg: "HS256" }, { a: 2, b: 1 }] });
  });

  it.each([
    ['{"typ":"JWT"}', "{}", "missing or invalid 'alg' header"],
    ['{"alg":"none"}', "{}", "unknown JWS algorithm: none"],
    ['{"alg":"HS256"}', "not json", "type is JWT but payload is not JSON"],
  ])("errors: %s %s", (header, payload, message) => {
    expect(call("io.jwt.encode_sign_raw", header, payload, JSON.stringify(oct))).toEqual({ error: `eval_builtin_error: ${message}` });
  });

  it("a token made in a policy verifies in the same policy (SDK)", async () => {
    const rs = (await evaluate({
      modules: ["package t"],
      query: 't := io.jwt.encode_sign({"alg": "HS256"}, {"sub": "agent-1"}, {"kty": "oct", "k": base64url.encode_no_pad("42")}); x := io.jwt.decode_verify(t, {"secret": "42"})',
    })) as { x: unknown }[];
    expect(rs[0]!.x).toEqual([true, { alg: "HS256" }, { sub: "agent-1" }]);
  });
});
