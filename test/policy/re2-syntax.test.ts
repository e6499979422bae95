/**
 * RE2 (Go regexp) syntax on the linear-time engine: each case is what Go's regexp
 * package answers (regexp/syntax with Perl flags).
 */
import { describe, expect, it } from "vitest";
import { compileRe2, RE2_CACHE_MAX } from "../../src/policy/host-builtins/re2.js";
import { regexFindN, regexMatch, regexReplace, regexTemplateMatch } from "../../src/policy/host-builtins/regex.js";

const match = (pattern: string, value: string): boolean => regexMatch(pattern, value);

describe("RE2 character classes", () => {
  it("a class escape followed by `-` is a literal `-` (the e-mail pattern of a public bundle)", () => {
    const email = "^[\\w-\\.]+@([\\w-]+\\.)+[\\w-]+$";
    expect(match(email, "payne@ebi.ac.uk")).toBe(true);
    expect(match(email, "pay-ne.x@ebi-1.ac.uk")).toBe(true);
    expect(match(email, "payne@ebi")).toBe(false);
    expect(match("^[\\d-z]+$", "1-z")).toBe(true);
    expect(match("^[\\d-z]+$", "y")).toBe(false);
    expect(match("^[\\s-x]$", "-")).toBe(true);
    expect(match("^[\\s-x]$", "a")).toBe(false);
  });

  it("a range after a range, and `-` at either end, are literal as in Go", () => {
    expect(match("^[a-c-e]+$", "a-e")).toBe(true);
    expect(match("^[a-c-e]+$", "d")).toBe(false);
    expect(match("^[-a]+$", "-a")).toBe(true);
    expect(match("^[a-]+$", "-a")).toBe(true);
  });

  it("POSIX classes, negated too", () => {
    expect(match("^[[:alpha:]]+$", "abZ")).toBe(true);
    expect(match("^[[:^digit:]]+$", "ab")).toBe(true);
    expect(match("^[[:^digit:]]+$", "a1")).toBe(false);
    expect(match("^[[:space:]]$", "\v")).toBe(true);
  });

  it("`\\s` and `\\S` are ASCII and exclude `\\v`, in and out of classes", () => {
    expect(match("^\\s$", "\v")).toBe(false);
    expect(match("^[\\S]$", "\v")).toBe(true);
    expect(match("^\\S$", "\u00a0")).toBe(true);
    expect(match("^[^\\S]$", " ")).toBe(true);
  });

  it("a range out of order is Go's error", () => {
    expect(() => match("[z-a]", "a")).toThrow("invalid character class range");
  });
});

describe("RE2 escapes, anchors and dot", () => {
  it("\\A, \\z, \\Q..\\E, octal and \\x{...}", () => {
    expect(match("\\Aab\\z", "ab")).toBe(true);
    expect(match("ab\\z", "ab\n")).toBe(false);
    expect(match("^\\Qa.b*\\E$", "a.b*")).toBe(true);
    expect(match("^\\Qa.b*\\E$", "axb")).toBe(false);
    expect(match("^\\012$", "\n")).toBe(true);
    expect(match("^\\x{1F600}$", "\u{1F600}")).toBe(true);
  });

  it("`.` matches everything but `\\n` (also `\\r` and U+2028)", () => {
    expect(match("^a.c$", "a\rc")).toBe(true);
    expect(match("^a.c$", "a\u2028c")).toBe(true);
    expect(match("^a.c$", "a\nc")).toBe(false);
    expect(match("(?s)^a.c$", "a\nc")).toBe(true);
  });

  it("under (?m) only `\\n` ends a line", () => {
    expect(match("(?m)^b$", "a\nb\nc")).toBe(true);
    expect(match("(?m)^b$", "a\rb\rc")).toBe(false);
    expect(match("^b$", "a\nb")).toBe(false);
  });

  it("\\pL, \\p{Greek} (a script), \\p{^Greek}", () => {
    expect(match("^\\pL+$", "aé")).toBe(true);
    expect(match("^\\p{Greek}+$", "αβ")).toBe(true);
    expect(match("^\\p{^Greek}+$", "ab")).toBe(true);
    expect(match("^[\\p{Lu}\\d]+$", "A1")).toBe(true);
  });

  it("Perl syntax Go rejects stays an error", () => {
    expect(() => match("(a)\\1", "aa")).toThrow("invalid escape sequence");
    expect(() => match("a(?=b)", "ab")).toThrow("invalid or unsupported Perl syntax");
    expect(() => match("a\\Z", "a")).toThrow("invalid escape sequence");
  });
});

describe("RE2 groups and flags", () => {
  it("(?P<name>...) and (?<name>...) groups", () => {
    expect(match("^(?P<user>\\w+)@(?<host>\\w+)$", "a@b")).toBe(true);
    expect(regexReplace("a@b", "(?P<user>\\w+)@(?P<host>\\w+)", "${host}:${user}")).toBe("b:a");
  });

  it("(?i) over the whole expression, also as a group around it", () => {
    expect(match("(?i)^abc$", "ABC")).toBe(true);
    expect(match("(?i:abc)", "ABC")).toBe(true);
    expect(match("^ab(?i)123$", "ab123")).toBe(true);
  });

  it("(?i) over part of the expression covers only that part, as in Go", () => {
    expect(match("^a(?i)b$", "aB")).toBe(true);
    expect(match("^a(?i)b$", "AB")).toBe(false);
    expect(match("^(?i:a)b$", "Ab")).toBe(true);
    expect(match("^(?i:a)b$", "AB")).toBe(false);
  });

  it("replace templates follow Go's Expand: $01 and unknown names are empty, $$ is a dollar", () => {
    expect(regexReplace("ab", "(a)", "[$01]")).toBe("[]b");
    expect(regexReplace("ab", "(a)", "[${nope}]")).toBe("[]b");
    expect(regexReplace("ab", "(a)", "$$1")).toBe("$1b");
    expect(regexReplace("ab", "(a)", "${1}x")).toBe("axb");
  });

  it("a capture name starting with a digit is valid, as in Go", () => {
    expect(match("^(?P<1x>a)$", "a")).toBe(true);
  });

  it("(?s) and (?m) inside the expression and in flag groups", () => {
    expect(match("^a(?s:.)c$", "a\nc")).toBe(true);
    expect(match("^a(?s:.).$", "a\n\n")).toBe(false);
    expect(match("a(?m)$", "a\nb")).toBe(true);
  });

  it("(?U) makes repetitions lazy and `?` greedy", () => {
    expect(regexFindN("(?U)a+", "aaa", -1)).toEqual(["a", "a", "a"]);
    expect(regexFindN("(?U)a+?", "aaa", -1)).toEqual(["aaa"]);
    expect(regexFindN("a+?", "aaa", 1)).toEqual(["a"]);
  });

  it("nested repetition and a missing argument are Go's errors", () => {
    expect(() => match("a**", "a")).toThrow("invalid nested repetition operator");
    expect(() => match("*a", "a")).toThrow("missing argument to repetition operator");
  });
});

describe("regex.template_match (OPA's template: literal text, first-level {regexp} parts)", () => {
  it("answers OPA's documented cases", () => {
    expect(regexTemplateMatch("urn:foo:{.*}", "urn:foo:bar:baz", "{", "}")).toBe(true);
    expect(regexTemplateMatch("urn:foo.bar.com:{.*}", "urn:foo.bar.com:bar:baz", "{", "}")).toBe(true);
    expect(regexTemplateMatch("urn:foo.bar.com:{.*}", "urn:foo.com:bar:baz", "{", "}")).toBe(false);
    expect(regexTemplateMatch("urn:foo.bar.com:{.*}", "foobar", "{", "}")).toBe(false);
    expect(regexTemplateMatch("urn:foo.bar.com:{.{1,2}}", "urn:foo.bar.com:aa", "{", "}")).toBe(true);
    expect(regexTemplateMatch("urn:foo:<[a-z]+>:x", "urn:foo:abc:x", "<", ">")).toBe(true);
  });

  it("unbalanced delimiters, delimiters longer than one byte and bad parts are OPA's errors", () => {
    expect(() => regexTemplateMatch("urn:foo.bar.com:{.*{}", "urn:foo.bar.com:bar:baz", "{", "}")).toThrow('unbalanced braces in "urn:foo.bar.com:{.*{}"');
    expect(() => regexTemplateMatch("a}", "a", "{", "}")).toThrow("unbalanced braces");
    expect(() => regexTemplateMatch("a", "a", "{{", "}")).toThrow("start delimiter has to be exactly one character long but is 2 long");
    expect(() => regexTemplateMatch("a", "a", "é", "}")).toThrow("start delimiter has to be exactly one character long but is 2 long");
    expect(() => regexTemplateMatch("{[}", "a", "{", "}")).toThrow("error parsing regexp: missing closing ]");
  });
});

describe("compiled patterns are cached, bounded", () => {
  it("a pattern used again is the same compiled expression until RE2_CACHE_MAX others were used since", () => {
    const first = compileRe2("^cache-probe-0$");
    expect(compileRe2("^cache-probe-0$")).toBe(first);
    for (let i = 1; i < RE2_CACHE_MAX; i++) compileRe2(`^cache-probe-${i}$`);
    // Used again just now: still the most recent, so it survived the others.
    expect(compileRe2("^cache-probe-0$")).toBe(first);
    for (let i = 0; i < RE2_CACHE_MAX; i++) compileRe2(`^cache-evict-${i}$`);
    expect(compileRe2("^cache-probe-0$")).not.toBe(first);
    expect(compileRe2("^cache-probe-0$").test("cache-probe-0")).toBe(true);
  });

  it("an invalid pattern is answered from the cache with the same error", () => {
    expect(() => compileRe2("(unclosed")).toThrow("error parsing regexp: missing closing ): `(unclosed`");
    expect(() => compileRe2("(unclosed")).toThrow("error parsing regexp: missing closing ): `(unclosed`");
  });
});
