/**
 * io.jwt.encode_sign and io.jwt.encode_sign_raw through node:crypto: the first key
 * of a JWK (or JWK set) signs `base64url(header).base64url(payload)` with the
 * header's `alg`. encode_sign serialises header and payload as Go's json.Marshal
 * does (sorted keys, no spaces, `<`, `>`, `&` escaped).
 */
import { constants, createHmac, createPrivateKey, sign, type KeyObject } from "node:crypto";
import { builtinError, operandTypeError } from "./errors.js";
import { JWS_ALGORITHMS } from "./jwt-keys.js";
import { stringOperand } from "./operands.js";

const HASHES: Readonly<Record<string, string>> = { "256": "sha256", "384": "sha384", "512": "sha512" };

/** Go's json.Marshal of a JSON value: map keys sorted, HTML-sensitive characters escaped. */
export function goJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJson).join(",")}]`;
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${goJson(k)}:${goJson(o[k])}`).join(",")}}`;
  }
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function firstJwk(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw builtinError(`failed to parse JWK: ${(e as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw builtinError("failed to parse JWK: not a JSON object");
  const set = parsed as Record<string, unknown>;
  if (!Array.isArray(set["keys"])) return set;
  const first = (set["keys"] as unknown[])[0];
  if (first === undefined) throw builtinError("no keys found in JWK set");
  return first as Record<string, unknown>;
}

function signature(alg: string, jwk: Record<string, unknown>, data: Buffer): Buffer {
  const hash = HASHES[alg.slice(2)];
  try {
    if (alg.startsWith("HS")) {
      if (jwk["kty"] !== "oct" || typeof jwk["k"] !== "string") throw new Error("key is not a symmetric (oct) key");
      return createHmac(hash!, Buffer.from(jwk["k"], "base64url")).update(data).digest();
    }
    const key: KeyObject = createPrivateKey({ key: jwk as never, format: "jwk" });
    if (alg === "EdDSA") return sign(null, data, key);
    if (alg.startsWith("RS")) return sign(hash!, data, { key, padding: constants.RSA_PKCS1_PADDING });
    if (alg.startsWith("PS")) return sign(hash!, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
    return sign(hash!, data, { key, dsaEncoding: "ieee-p1363" });
  } catch (e) {
    throw builtinError(`failed to sign the JWS with ${alg}: ${(e as Error).message}`);
  }
}

function encode(headerText: string, payloadText: string, keyText: string): string {
  let header: unknown;
  try {
    header = JSON.parse(headerText);
  } catch {
    header = undefined;
  }
  const alg = typeof header === "object" && header !== null ? (header as Record<string, unknown>)["alg"] : undefined;
  if (typeof alg !== "string") throw builtinError("missing or invalid 'alg' header");
  if (!JWS_ALGORITHMS.has(alg)) throw builtinError(`unknown JWS algorithm: ${alg}`);
  const typ = (header as Record<string, unknown>)["typ"];
  if (typeof typ !== "string" || typ === "JWT") {
    try {
      JSON.parse(payloadText);
    } catch {
      throw builtinError("type is JWT but payload is not JSON");
    }
  }
  const jwk = firstJwk(keyText);
  const signing = `${Buffer.from(headerText).toString("base64url")}.${Buffer.from(payloadText).toString("base64url")}`;
  return `${signing}.${signature(alg, jwk, Buffer.from(signing)).toString("base64url")}`;
}

export function jwtEncodeSignRaw(headers: unknown, payload: unknown, key: unknown): string {
  const k = stringOperand(key, 3);
  return encode(stringOperand(headers, 1), stringOperand(payload, 2), k);
}

export function jwtEncodeSign(headers: unknown, payload: unknown, key: unknown): string {
  const object = (v: unknown, pos: number): unknown => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw operandTypeError(pos, v, "object");
    return v;
  };
  return encode(goJson(object(headers, 1)), goJson(object(payload, 2)), goJson(object(key, 3)));
}

export const jwtSignBuiltins = {
  "io.jwt.encode_sign": jwtEncodeSign,
  "io.jwt.encode_sign_raw": jwtEncodeSignRaw,
};
