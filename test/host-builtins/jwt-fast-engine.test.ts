/** An agent's principal as a signed token, verified by a policy on toolgate's fast engine and on the SDK alike. */
import { createHmac, generateKeyPairSync, sign } from "node:crypto";
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { beforeAll, describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { FastPolicy } from "../../src/policy/fast-engine.js";
import { hostBuiltins } from "../../src/policy/host-builtins/index.js";

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString("base64url");
function rs256(payload: Record<string, unknown>, key = rsa.privateKey): string {
  const signing = `${b64({ alg: "RS256", kid: "k1" })}.${b64(payload)}`;
  return `${signing}.${sign("sha256", Buffer.from(signing), key).toString("base64url")}`;
}

const source = `package agent
import rego.v1

claims := c if {
  [ok, _, c] := io.jwt.decode_verify(input.token, {"cert": data.jwks, "iss": "idp", "aud": "toolgate"})
  ok
}
allow if claims.role == "operator"
`;

describe("agent principals as tokens", () => {
  let wasm: Uint8Array;
  const jwks = JSON.stringify({ keys: [{ ...(rsa.publicKey.export({ format: "jwk" }) as object), kid: "k1", alg: "RS256" }] });
  beforeAll(() => {
    const r = compilePolicy({ modules: [{ file: "agent.rego", source }], entrypoints: ["agent/allow", "agent/claims"] });
    expect(r.errors).toEqual([]);
    wasm = r.wasm!;
  });

  it("the fast engine and the SDK decide alike: valid, tampered, expired, wrong key, wrong audience", async () => {
    const later = Math.floor(Date.now() / 1000) + 600;
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const tokens = {
      valid: rs256({ sub: "agent-1", role: "operator", iss: "idp", aud: "toolgate", exp: later }),
      expired: rs256({ sub: "agent-1", role: "operator", iss: "idp", aud: "toolgate", exp: 1 }),
      wrongKey: rs256({ sub: "agent-1", role: "operator", iss: "idp", aud: "toolgate", exp: later }, other),
      wrongAudience: rs256({ sub: "agent-1", role: "operator", iss: "idp", aud: "elsewhere", exp: later }),
      hs256: `${b64({ alg: "HS256" })}.${b64({ role: "operator", iss: "idp", aud: "toolgate" })}.${createHmac("sha256", jwks).update("x").digest("base64url")}`,
    };
    const tampered = tokens.valid.split(".");
    tampered[1] = b64({ sub: "agent-1", role: "operator", iss: "idp", aud: "toolgate", exp: later, extra: 1 });
    const all = { ...tokens, tampered: tampered.join(".") };

    const sdk = await loadPolicy(wasm, undefined, hostBuiltins);
    sdk.setData({ jwks });
    const fast = await FastPolicy.load(wasm);
    fast.setData({ jwks });
    const allowId = fast.entrypoints["agent/allow"]!;
    const allowed: Record<string, boolean> = {};
    for (const [name, token] of Object.entries(all)) {
      const a = fast.evaluate({ token }, allowId);
      expect([name, a]).toEqual([name, sdk.evaluate({ token }, "agent/allow")]);
      allowed[name] = (a as { result: unknown }[]).length > 0 && (a as { result: unknown }[])[0]!.result === true;
    }
    expect(allowed).toEqual({ valid: true, expired: false, wrongKey: false, wrongAudience: false, hs256: false, tampered: false });
  });
});
