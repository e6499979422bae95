/**
 * Verification keys as OPA reads them (getKeysFromCertOrJWK): one PEM block (a
 * CERTIFICATE or a PUBLIC KEY, nothing after it), else a JWK or a JWK set in
 * JSON. JWK set members carry their `kid` and `alg`; members whose `alg` is not
 * a JWS algorithm OPA knows are skipped.
 */
import { createPublicKey, createSecretKey, X509Certificate, type KeyObject } from "node:crypto";
import { builtinError } from "./errors.js";

export interface VerificationKey {
  readonly key: KeyObject;
  /** "" when the key does not name one (PEM, or a JWK without `alg`). */
  readonly alg: string;
  readonly kid: string;
}

export const JWS_ALGORITHMS: ReadonlySet<string> = new Set([
  "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "HS256", "HS384", "HS512", "EdDSA",
]);

/** Go's pem.Decode: the first block, and what follows its END line. */
function pemBlock(text: string): { type: string; der: Buffer; rest: string } | null {
  const m = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----(?:\r?\n)?/.exec(text);
  if (m === null) return null;
  const body = m[2]!.split(/\r?\n/).filter((line) => !line.includes(":")).join("");
  return { type: m[1]!, der: Buffer.from(body.replace(/\s+/g, ""), "base64"), rest: text.slice(m.index + m[0].length) };
}

function jwkKey(jwk: Record<string, unknown>): KeyObject {
  if (jwk["kty"] === "oct") {
    if (typeof jwk["k"] !== "string") throw new Error("missing k");
    return createSecretKey(Buffer.from(jwk["k"], "base64url"));
  }
  return createPublicKey({ key: jwk as never, format: "jwk" });
}

function fromJwk(text: string): VerificationKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not a JSON object");
  } catch (e) {
    throw builtinError(`failed to parse a JWK key (set): ${(e as Error).message}`);
  }
  const set = parsed as Record<string, unknown>;
  const members = Array.isArray(set["keys"]) ? (set["keys"] as unknown[]) : [set];
  const keys: VerificationKey[] = [];
  for (const m of members) {
    if (typeof m !== "object" || m === null) throw builtinError("failed to parse a JWK key (set): a key is not a JSON object");
    const jwk = m as Record<string, unknown>;
    const alg = typeof jwk["alg"] === "string" ? jwk["alg"] : "";
    if (alg !== "" && !JWS_ALGORITHMS.has(alg)) continue;
    let key: KeyObject;
    try {
      key = jwkKey(jwk);
    } catch (e) {
      throw builtinError(`failed to parse a JWK key (set): ${(e as Error).message}`);
    }
    keys.push({ key, alg, kid: typeof jwk["kid"] === "string" ? jwk["kid"] : "" });
  }
  return keys;
}

export function verificationKeys(certificate: string): VerificationKey[] {
  const block = pemBlock(certificate);
  if (block === null) return fromJwk(certificate);
  if (block.rest.length > 0) throw builtinError("extra data after a PEM certificate block");
  if (block.type === "CERTIFICATE") {
    try {
      return [{ key: new X509Certificate(block.der).publicKey, alg: "", kid: "" }];
    } catch (e) {
      throw builtinError(`failed to parse a PEM certificate: ${(e as Error).message}`);
    }
  }
  if (block.type === "PUBLIC KEY") {
    try {
      return [{ key: createPublicKey({ key: block.der, format: "der", type: "spki" }), alg: "", kid: "" }];
    } catch (e) {
      throw builtinError(`failed to parse a PEM public key: ${(e as Error).message}`);
    }
  }
  throw builtinError("failed to extract a Key from the PEM certificate");
}
