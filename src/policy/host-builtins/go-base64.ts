/**
 * Go's encoding/base64 decoder (padded StdEncoding and URLEncoding, not strict):
 * the bytes it accepts, and its `illegal base64 data at input byte N` errors at the
 * offset Go computes, so OPA's base64.decode and base64url.decode texts match.
 * Newlines (\r, \n) anywhere are skipped, as Go skips them.
 */

const STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const PAD = 0x3d; // '='

function decodeMap(alphabet: string): Int16Array {
  const m = new Int16Array(256).fill(-1);
  for (let i = 0; i < alphabet.length; i++) m[alphabet.charCodeAt(i)] = i;
  return m;
}

const STD_MAP = decodeMap(STD);
const URL_MAP = decodeMap(URL);

/** Go's base64.CorruptInputError. */
export class CorruptInputError extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
  }
}

const isNewline = (b: number | undefined): boolean => b === 0x0a || b === 0x0d;

/** Decodes `src` (bytes) as Go's `Encoding.DecodeString` does; throws CorruptInputError. */
function decode(src: Uint8Array, map: Int16Array): Uint8Array {
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    // One quantum: up to four symbols (Go's decodeQuantum).
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let trailing: number | null = null;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out);
        // Padded encodings need whole quanta.
        throw new CorruptInputError(si - j);
      }
      const c = src[si]!;
      si++;
      const v = map[c]!;
      if (v >= 0) {
        dbuf[j] = v;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== PAD) throw new CorruptInputError(si - 1);
      // Padding: the quantum ends here.
      if (j === 0 || j === 1) throw new CorruptInputError(si - 1);
      if (j === 2) {
        // "==" expected; the first '=' is consumed.
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) throw new CorruptInputError(src.length);
        if (src[si] !== PAD) throw new CorruptInputError(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      if (si < src.length) trailing = si;
      dlen = j;
      break;
    }
    const val = (dbuf[0]! << 18) | (dbuf[1]! << 12) | (dbuf[2]! << 6) | dbuf[3]!;
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    for (let k = 0; k < dlen - 1; k++) out.push(bytes[k]!);
    if (trailing !== null) throw new CorruptInputError(trailing);
  }
  return Uint8Array.from(out);
}

const utf8 = new TextEncoder();

/** base64.StdEncoding.DecodeString of a Rego string's UTF-8 bytes. */
export function goBase64Decode(s: string): Uint8Array {
  return decode(utf8.encode(s), STD_MAP);
}

/** base64.URLEncoding.DecodeString of a Rego string's UTF-8 bytes. */
export function goBase64UrlDecode(s: string): Uint8Array {
  return decode(utf8.encode(s), URL_MAP);
}
