/**
 * json.unmarshal, base64.decode and base64url.decode with OPA's errors
 * (topdown/encoding.go): Go's encoding/json and encoding/base64 texts, byte offsets
 * as Go computes them. json.unmarshal hands the checked text back as raw JSON, so
 * the module parses it digit for digit (integers beyond 2^53 stay exact).
 */
import { builtinError } from "./errors.js";
import { jsonText } from "./exact.js";
import { CorruptInputError, goBase64Decode, goBase64UrlDecode } from "./go-base64.js";
import { GoJsonError, goJsonUnmarshalBytes } from "./go-json-decode.js";
import { stringOperand } from "./operands.js";

const utf8 = new TextEncoder();

export function jsonUnmarshal(x: unknown): ArrayBuffer {
  const s = stringOperand(x, 1);
  let bytes: Uint8Array;
  try {
    bytes = goJsonUnmarshalBytes(s);
  } catch (e) {
    if (e instanceof GoJsonError) throw builtinError(e.message);
    throw e;
  }
  return jsonText(new TextDecoder().decode(bytes));
}

/**
 * Decoded bytes as a JSON string literal holding them verbatim: the module keeps the
 * bytes as they are (invalid UTF-8 included, as OPA's strings do), so
 * `base64.encode(base64.decode(x))` gives `x` back.
 */
function rawJsonString(bytes: Uint8Array): ArrayBuffer {
  const out: number[] = [0x22];
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out.push(0x5c, b);
    else if (b < 0x20) out.push(...utf8.encode(`\\u00${b.toString(16).padStart(2, "0")}`));
    else out.push(b);
  }
  out.push(0x22);
  return Uint8Array.from(out).buffer;
}

function decoded(decode: (s: string) => Uint8Array, s: string): ArrayBuffer {
  try {
    return rawJsonString(decode(s));
  } catch (e) {
    if (e instanceof CorruptInputError) throw builtinError(e.message);
    throw e;
  }
}

export function base64Decode(x: unknown): ArrayBuffer {
  return decoded(goBase64Decode, stringOperand(x, 1));
}

/** Missing padding is restored first (RFC 7515 appendix C), as OPA does. */
export function base64UrlPadded(s: string): string {
  if (s.endsWith("=")) return s;
  switch (utf8.encode(s).length % 4) {
    case 0:
      return s;
    case 2:
      return `${s}==`;
    case 3:
      return `${s}=`;
    default:
      throw builtinError(`illegal base64url string: ${s}`);
  }
}

export function base64UrlDecode(x: unknown): ArrayBuffer {
  return decoded(goBase64UrlDecode, base64UrlPadded(stringOperand(x, 1)));
}

export const encodingBuiltins = {
  "json.unmarshal": jsonUnmarshal,
  "base64.decode": base64Decode,
  "base64url.decode": base64UrlDecode,
};
