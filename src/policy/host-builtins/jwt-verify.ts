/**
 * io.jwt.verify_{hs,rs,ps,es}{256,384,512}, io.jwt.verify_eddsa and
 * io.jwt.decode_verify, through node:crypto, with OPA's rules: a JWK set member
 * whose `kid` matches the header's is the only key tried; otherwise every key
 * whose `alg` is absent or equals the header's. A signature that does not verify
 * is `false` (decode_verify: `[false, {}, {}]`); malformed tokens, keys and
 * constraints are errors with OPA's texts.
 */
import { constants, createHmac, createSecretKey, timingSafeEqual, verify, type KeyObject } from "node:crypto";
import { builtinError, operandTypeError } from "./errors.js";
import { decodeHeader, decodePayloadText, decodeSignature, jsonObject, splitJws, type CompactJws } from "./jwt.js";
import { verificationKeys, type VerificationKey } from "./jwt-keys.js";
import { stringOperand } from "./operands.js";

const HASHES: Readonly<Record<string, string>> = { "256": "sha256", "384": "sha384", "512": "sha512" };

/** Whether `sig` is `alg`'s signature of `data` under `key`; a key of the wrong kind does not verify. */
export function verifiesWith(alg: string, key: KeyObject, data: Buffer, sig: Buffer): boolean {
  const family = alg.slice(0, 2);
  const hash = HASHES[alg.slice(2)];
  try {
    if (alg === "EdDSA") return key.asymmetricKeyType === "ed25519" && verify(null, data, key, sig);
    if (hash === undefined) return false;
    switch (family) {
      case "HS": {
        if (key.type !== "secret") return false;
        const mac = createHmac(hash, key).update(data).digest();
        return mac.length === sig.length && timingSafeEqual(mac, sig);
      }
      case "RS":
        return key.asymmetricKeyType === "rsa" && verify(hash, data, { key, padding: constants.RSA_PKCS1_PADDING }, sig);
      case "PS":
        return (
          (key.asymmetricKeyType === "rsa" || key.asymmetricKeyType === "rsa-pss") &&
          verify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, sig)
        );
      case "ES":
        return key.asymmetricKeyType === "ec" && verify(hash, data, { key, dsaEncoding: "ieee-p1363" }, sig);
      default:
        return false;
    }
  } catch {
    return false; // node:crypto rejects a signature of the wrong length: it does not verify
  }
}

/** The `kid` rule, then any key whose `alg` is unset or the header's. */
function verifiedByKeys(keys: readonly VerificationKey[], header: Record<string, unknown>, alg: string, jws: CompactJws, sig: Buffer): boolean {
  const data = Buffer.from(`${jws.header}.${jws.payload}`, "utf8");
  const kid = typeof header["kid"] === "string" ? header["kid"] : "";
  const headerAlg = typeof header["alg"] === "string" ? header["alg"] : "";
  const byKid = kid === "" ? undefined : keys.find((k) => k.kid === kid);
  if (byKid !== undefined) return verifiesWith(alg, byKid.key, data, sig);
  return keys.some((k) => (k.alg === "" || k.alg === headerAlg) && verifiesWith(alg, k.key, data, sig));
}

/** OPA's parseTokenHeader checks on the fields it knows. */
function checkHeaderFields(header: Record<string, unknown>): void {
  for (const name of ["alg", "kid", "typ", "cty"]) {
    if (name in header && typeof header[name] !== "string") throw builtinError(`${name}: must be a string`);
  }
  if ("crit" in header) {
    const crit = header["crit"];
    if (!Array.isArray(crit)) throw builtinError("crit: must be a list");
    if (!crit.some((c) => typeof c === "string")) throw builtinError("crit: must be a nonempty list");
  }
}

function verifyWithCertificate(alg: string) {
  return (token: unknown, certificate: unknown): boolean => {
    const jws = splitJws(token);
    const keys = verificationKeys(stringOperand(certificate, 2));
    const sig = decodeSignature(jws);
    const header = decodeHeader(jws);
    checkHeaderFields(header);
    return verifiedByKeys(keys, header, alg, jws, sig);
  };
}

function verifyWithSecret(alg: string) {
  return (token: unknown, secret: unknown): boolean => {
    stringOperand(token, 1);
    const key = stringOperand(secret, 2);
    const jws = splitJws(token);
    const mac = createHmac(HASHES[alg.slice(2)]!, Buffer.from(key, "utf8")).update(`${jws.header}.${jws.payload}`, "utf8").digest();
    const sig = decodeSignature(jws);
    return mac.length === sig.length && timingSafeEqual(mac, sig);
  };
}

interface Constraints {
  keys: VerificationKey[] | null;
  secret: string;
  alg: string;
  iss: string;
  aud: string;
  /** ns since the epoch */
  time: number;
}

function timeConstraint(v: unknown): number {
  if (typeof v !== "number") throw builtinError("token time constraint: must be a number");
  if (v < 0) throw builtinError("token time constraint: must not be negative");
  return v;
}

function constraintsOf(operand: unknown, nowNs: () => number): Constraints {
  if (typeof operand !== "object" || operand === null || Array.isArray(operand)) throw operandTypeError(2, operand, "object");
  const c: Constraints = { keys: null, secret: "", alg: "", iss: "", aud: "", time: -1 };
  const given = operand as Record<string, unknown>;
  for (const name of Object.keys(given).sort()) {
    const v = given[name];
    switch (name) {
      case "cert":
        if (typeof v !== "string") throw builtinError("cert constraint: must be a string");
        c.keys = verificationKeys(v);
        break;
      case "secret":
      case "alg":
      case "iss":
      case "aud":
        if (typeof v !== "string") throw builtinError(`${name} constraint: must be a string`);
        c[name] = v;
        break;
      case "time":
        c.time = timeConstraint(v);
        break;
      default:
        throw builtinError(`unknown token validation constraint: ${name}`);
    }
  }
  if (c.time === -1) c.time = timeConstraint(nowNs());
  const keyConstraints = (c.keys !== null ? 1 : 0) + (c.secret !== "" ? 1 : 0);
  if (keyConstraints > 1) throw builtinError("duplicate key constraints");
  if (keyConstraints < 1) throw builtinError("no key constraint");
  return c;
}

function headerValid(header: Record<string, unknown>): boolean {
  if (typeof header["alg"] !== "string" || header["alg"] === "") return false;
  const crit = Array.isArray(header["crit"]) ? header["crit"].filter((x): x is string => typeof x === "string") : [];
  const known = new Set(["alg", "kid", "typ", "cty", "crit"]);
  return !Object.keys(header).some((k) => !known.has(k) && crit.includes(k));
}

function audienceValid(aud: unknown, want: string): boolean {
  if (typeof aud === "string") return aud === want;
  return Array.isArray(aud) && aud.some((a) => a === want);
}

const UNVERIFIED = (): unknown[] => [false, {}, {}];

export function decodeVerifyWith(nowNs: () => number) {
  return (token: unknown, constraintsOperand: unknown): unknown[] => {
    const c = constraintsOf(constraintsOperand, nowNs);
    let current: unknown = token;
    let header: Record<string, unknown>;
    let payloadText: string;
    for (;;) {
      const jws = splitJws(current);
      header = decodeHeader(jws);
      checkHeaderFields(header);
      if (!headerValid(header)) return UNVERIFIED();
      const alg = header["alg"] as string;
      if (c.alg !== "" && c.alg !== alg) return UNVERIFIED();
      const sig = decodeSignature(jws);
      const ok =
        c.keys !== null
          ? verifiedByKeys(c.keys, header, alg, jws, sig)
          : alg.startsWith("HS") && verifiesWith(alg, createSecretKey(Buffer.from(c.secret, "utf8")), Buffer.from(`${jws.header}.${jws.payload}`, "utf8"), sig);
      if (!ok) return UNVERIFIED();
      payloadText = decodePayloadText(jws);
      if (typeof header["cty"] === "string" && header["cty"].toUpperCase() === "JWT") {
        current = payloadText; // a nested token: verified with the same constraints
        continue;
      }
      break;
    }
    const payload = jsonObject(payloadText);
    if (c.iss !== "" && payload["iss"] !== c.iss) return UNVERIFIED();
    if ("aud" in payload ? !audienceValid(payload["aud"], c.aud) : c.aud !== "") return UNVERIFIED();
    const now = c.time / 1e9;
    if ("exp" in payload) {
      if (typeof payload["exp"] !== "number") throw builtinError("exp value must be a number");
      if (now >= payload["exp"]) return UNVERIFIED();
    }
    if ("nbf" in payload) {
      if (typeof payload["nbf"] !== "number") throw builtinError("nbf value must be a number");
      if (now < payload["nbf"]) return UNVERIFIED();
    }
    return [true, header, payload];
  };
}

/** The wall clock in ns (the host object fixes it per evaluation instead, see createHostBuiltins). */
const wallClockNs = (): number => Date.now() * 1e6;

export const jwtVerifyBuiltins = {
  "io.jwt.verify_hs256": verifyWithSecret("HS256"),
  "io.jwt.verify_hs384": verifyWithSecret("HS384"),
  "io.jwt.verify_hs512": verifyWithSecret("HS512"),
  "io.jwt.verify_rs256": verifyWithCertificate("RS256"),
  "io.jwt.verify_rs384": verifyWithCertificate("RS384"),
  "io.jwt.verify_rs512": verifyWithCertificate("RS512"),
  "io.jwt.verify_ps256": verifyWithCertificate("PS256"),
  "io.jwt.verify_ps384": verifyWithCertificate("PS384"),
  "io.jwt.verify_ps512": verifyWithCertificate("PS512"),
  "io.jwt.verify_es256": verifyWithCertificate("ES256"),
  "io.jwt.verify_es384": verifyWithCertificate("ES384"),
  "io.jwt.verify_es512": verifyWithCertificate("ES512"),
  "io.jwt.verify_eddsa": verifyWithCertificate("EdDSA"),
  "io.jwt.decode_verify": decodeVerifyWith(wallClockNs),
};
