/**
 * Go's quoting of strings in error texts: `strconv.Quote` (fmt's `%q`) and the time
 * package's own `quote` (time.ParseDuration, time.Parse errors).
 */

const utf8 = new TextEncoder();
const hex2 = (b: number): string => b.toString(16).padStart(2, "0");
// unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const ESCAPES: Readonly<Record<string, string>> = { "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", "\\": "\\\\", '"': '\\"' };

/** strconv.Quote: printable runes as they are, the rest escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const esc = ESCAPES[ch];
    if (esc !== undefined) out += esc;
    else if (PRINTABLE.test(ch)) out += ch;
    else {
      const cp = ch.codePointAt(0)!;
      out += cp < 0x80 ? `\\x${hex2(cp)}` : cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, "0")}` : `\\U${cp.toString(16).padStart(8, "0")}`;
    }
  }
  return `${out}"`;
}

/** The time package's quote: ASCII as it is (`"` and `\` escaped), every other byte as \xNN. */
export function goTimeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x80 || cp < 0x20) for (const b of utf8.encode(ch)) out += `\\x${hex2(b)}`;
    else out += ch === '"' || ch === "\\" ? `\\${ch}` : ch;
  }
  return `${out}"`;
}
