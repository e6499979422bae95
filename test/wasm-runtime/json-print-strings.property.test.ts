/**
 * Strings dump as Go's encoding/json writes them with HTML escaping (the runtime's
 * JSON printer stores runs of plain bytes eight at a time and escapes the others):
 * any string, parsed and dumped again, gives exactly Go's text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadRuntime } from "./harness.js";

const rt = loadRuntime();

/** Go's encoding/json text of a (well-formed) string, HTML-safe. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || ch === "<" || ch === ">" || ch === "&" || c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out + '"';
}

const SPECIAL = ["a", "b", "é", "<", ">", "&", '"', "\\", "\n", "\r", "\t", "\u0001", "\u001f", " ", "\u2028", "\u2029", "\u2027", "\u20ac", "😀", "\u007f"];

describe("JSON dump of strings", () => {
  it("matches Go's HTML-safe escaping", () => {
    const text = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.array(fc.constantFrom(...SPECIAL), { maxLength: 40 }).map((xs) => xs.join("")),
    );
    fc.assert(
      fc.property(text, (s) => {
        // lone surrogates arrive as \udXXX escapes, which the parser reads as U+FFFD
        const wellFormed = s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
        expect(rt.dump(rt.parse(JSON.stringify(s)))).toBe(goQuote(wellFormed));
      }),
      { numRuns: 3000 },
    );
  });

  it("escapes at every position of a long string", () => {
    for (const special of ["<", '"', "\\", "\n", "\u0002", "\u2028", "&"]) {
      for (let at = 0; at < 20; at++) {
        const s = "x".repeat(at) + special + "y".repeat(19 - at);
        expect(rt.dump(rt.parse(JSON.stringify(s)))).toBe(goQuote(s));
      }
    }
  });
});
