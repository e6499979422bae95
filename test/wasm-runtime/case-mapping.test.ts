/** lower/upper map every rune as Go's unicode.ToLower/ToUpper do (Unicode 15 simple case mappings). */
import { describe, expect, it } from "vitest";
import { loadRuntime } from "./harness.js";

const rt = loadRuntime();
const call = (fn: "opa_strings_lower" | "opa_strings_upper", s: string): unknown => JSON.parse(rt.dump(rt.call(fn, rt.parse(JSON.stringify(s))))!);

describe("lower and upper over all of Unicode", () => {
  it("lower maps each rune on its own: Greek with tonos and psili, capital sigma never final, Latin Extended-C", () => {
    expect(call("opa_strings_lower", "ὈΔΥΣΣΕΎΣ Ɐ")).toBe("ὀδυσσεύσ ɐ");
  });

  it("lower: dotted capital I is i, the Kelvin sign is k, titlecase and capital sharp s have lowercase", () => {
    expect(call("opa_strings_lower", "İ K ǅ Ǆ ẞ Ꭰ 𐐀 𞤀")).toBe("i k ǆ ǆ ß ꭰ 𐐨 𞤢");
  });

  it("upper uses the simple mapping only: ß and ŉ stay, ſ is S, ᾳ is ᾼ, a mapping may grow from 2 to 3 bytes", () => {
    expect(call("opa_strings_upper", "ß ŉ ſ ǆ ᾳ ᾀ ɐ ȿ ɀ")).toBe("ß ŉ S Ǆ ᾼ ᾈ Ɐ Ȿ Ɀ");
    expect(call("opa_strings_upper", "ȿȿȿȿȿȿȿȿ")).toBe("ⱾⱾⱾⱾⱾⱾⱾⱾ");
  });

  it("ASCII, uncased letters and combining marks are unchanged; ypogegrammeni uppers to iota", () => {
    expect(call("opa_strings_upper", "abc XYZ 123 日本 \u0345")).toBe("ABC XYZ 123 日本 Ι");
    expect(call("opa_strings_lower", "ABC xyz 123 日本")).toBe("abc xyz 123 日本");
  });
});
