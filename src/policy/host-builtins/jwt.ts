/** io.jwt.decode: [header, payload, signature as hex] of a compact JWS, without verifying it. */
import { builtinError } from "./errors.js";
import { stringOperand } from "./operands.js";

function b64url(part: string): Buffer {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(part)) throw builtinError("JWT is not base64url encoded");
  return Buffer.from(part, "base64url");
}

function jsonPart(part: string, what: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(b64url(part).toString("utf8"));
  } catch (e) {
    if (e instanceof SyntaxError) throw builtinError(`JWT ${what} had invalid encoding: ${e.message}`);
    throw e;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw builtinError(`JWT ${what} is not a JSON object`);
  return v;
}

export function jwtDecode(token: unknown): unknown[] {
  const parts = stringOperand(token, 1).split(".");
  if (parts.length !== 3) throw builtinError("encoded JWT had no period separators");
  const header = jsonPart(parts[0]!, "header") as Record<string, unknown>;
  const payload = jsonPart(parts[1]!, "payload");
  if (header["enc"] !== undefined) throw builtinError("JWT is a JWE object, which is not supported");
  return [header, payload, b64url(parts[2]!).toString("hex")];
}

export const jwtBuiltins = { "io.jwt.decode": jwtDecode };
