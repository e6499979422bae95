/**
 * A compact JWS split and decoded as OPA does (io.jwt.decode; the parts the
 * verifying builtins share): base64url with or without padding, header and
 * payload JSON objects, JWE rejected, OPA's error texts.
 */
import { base64UrlPadded } from "./encoding.js";
import { builtinError } from "./errors.js";
import { CorruptInputError, goBase64UrlDecode } from "./go-base64.js";
import { goJsonUnmarshalBytes } from "./go-json-decode.js";
import { stringOperand } from "./operands.js";

export interface CompactJws {
  /** The three base64url sections as written. */
  readonly header: string;
  readonly payload: string;
  readonly signature: string;
}

/** OPA's decodeJWT: three dot-separated sections. */
export function splitJws(token: unknown): CompactJws {
  const text = stringOperand(token, 1);
  if (!text.includes(".")) throw builtinError("encoded JWT had no period separators");
  const parts = text.split(".");
  if (parts.length !== 3) throw builtinError(`encoded JWT must have 3 sections, found ${parts.length}`);
  return { header: parts[0]!, payload: parts[1]!, signature: parts[2]! };
}

/** OPA's base64url.decode: missing padding is restored (RFC 7515 appendix C), then Go's decoder. */
export function base64UrlDecode(s: string): Buffer {
  try {
    return Buffer.from(goBase64UrlDecode(base64UrlPadded(s)));
  } catch (e) {
    if (e instanceof CorruptInputError) throw builtinError(e.message);
    throw e;
  }
}

/** OPA's extractJSONObject. */
export function jsonObject(text: string): Record<string, unknown> {
  let v: unknown;
  try {
    // OPA decodes with json.unmarshal: Go's syntax errors, the first value of the text.
    v = JSON.parse(new TextDecoder().decode(goJsonUnmarshalBytes(text)));
  } catch (e) {
    throw builtinError(`invalid JSON: ${(e as Error).message}`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw builtinError("decoded JSON type was not an Object");
  return v as Record<string, unknown>;
}

function part(section: string, what: string): Buffer {
  try {
    return base64UrlDecode(section);
  } catch (e) {
    throw builtinError(`JWT ${what} had invalid encoding: ${(e as Error).message}`);
  }
}

export function decodeHeader(jws: CompactJws): Record<string, unknown> {
  const text = part(jws.header, "header").toString("utf8");
  let header: Record<string, unknown>;
  try {
    header = jsonObject(text);
  } catch (e) {
    throw builtinError(`bad JWT header: ${(e as Error).message}`);
  }
  if (header["enc"] !== undefined) throw builtinError("JWT is a JWE object, which is not supported");
  return header;
}

export const decodePayloadText = (jws: CompactJws): string => part(jws.payload, "payload").toString("utf8");

export const decodeSignature = (jws: CompactJws): Buffer => base64UrlDecode(jws.signature);

export function jwtDecode(token: unknown): unknown[] {
  const jws = splitJws(token);
  const header = decodeHeader(jws);
  const payload = decodePayloadText(jws);
  if (header["cty"] === "JWT") return jwtDecode(payload.replace(/^["']+|["']+$/g, "")); // a nested token is quoted
  const claims = jsonObject(payload);
  return [header, claims, part(jws.signature, "signature").toString("hex")];
}

export const jwtBuiltins = { "io.jwt.decode": jwtDecode };
