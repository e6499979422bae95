import { describe, expect, it } from "vitest";
import { lex } from "../../codegen/rego/lexer.js";

const cases: { note: string; src: string; want: string[]; errors?: string[] }[] = [
  { note: "idents and punctuation", src: "p := x.y[0]", want: ["ident:p", "punct::=", "ident:x", "punct:.", "ident:y", "punct:[", "number:0", "punct:]"] },
  { note: "two-char operators", src: "a==b!=c<=d>=e", want: ["ident:a", "punct:==", "ident:b", "punct:!=", "ident:c", "punct:<=", "ident:d", "punct:>=", "ident:e"] },
  { note: "numbers with fraction and exponent", src: "1.5e-3 12345678901234567890 0", want: ["number:1.5e-3", "number:12345678901234567890", "number:0"] },
  { note: "string escapes decode", src: String.raw`"a\"b\n\u00e9"`, want: ['string:a"b\né'] },
  { note: "raw strings keep backslashes and newlines", src: "`a\\n\nb`", want: ["rawstring:a\\n\nb"] },
  { note: "comments are dropped", src: "a # comment\nb", want: ["ident:a", "ident:b"] },
  { note: "bad escape", src: String.raw`"\q"`, want: ["illegal:"], errors: ["illegal escape sequence \\q in string"] },
  { note: "unterminated string", src: '"abc', want: ["illegal:abc"], errors: ["non-terminated string"] },
  { note: "illegal character", src: "a ^ b", want: ["ident:a", "illegal:^", "ident:b"], errors: ['illegal token "^"'] },
];

describe("lexer", () => {
  for (const c of cases) {
    it(c.note, () => {
      const r = lex(c.src, "t.rego");
      const got = r.tokens.filter((t) => t.kind !== "eof").map((t) => `${t.kind}:${t.kind === "punct" || t.kind === "ident" || t.kind === "number" ? t.text : t.value}`);
      expect(got).toEqual(c.want);
      expect(r.errors.map((e) => e.message)).toEqual(c.errors ?? []);
    });
  }

  it("records newlines, whitespace and 1-based positions", () => {
    const r = lex("a\n  b.c", "t.rego");
    const [a, b, dot] = r.tokens;
    expect([a?.row, a?.col, a?.nl]).toEqual([1, 1, false]);
    expect([b?.row, b?.col, b?.nl, b?.ws]).toEqual([2, 3, true, true]);
    expect([dot?.text, dot?.ws]).toEqual([".", false]);
  });
});
