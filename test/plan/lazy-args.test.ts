/**
 * An argument bound to a parameter the function never reads is not evaluated, as
 * OPA binds it lazily: an undefined argument there does not make the call undefined.
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "../wasm-emit/sdk-harness.js";

describe("arguments of unread parameters", () => {
  it("an undefined argument for a wildcard parameter leaves the call defined", async () => {
    const modules = ["package c\nf(_) := true\np if f(input.missing)"];
    expect(await evaluate({ modules, query: "x = data.c.p", input: {} })).toEqual([{ x: true }]);
  });

  it("an undefined argument for a named, unread parameter leaves the call defined", async () => {
    const modules = ['package c\nf(obj, name) := name\np := f(input.missing, "n")'];
    expect(await evaluate({ modules, query: "x = data.c.p", input: {} })).toEqual([{ x: "n" }]);
  });

  it("an undefined argument for a parameter that is read still makes the call undefined", async () => {
    const modules = ["package c\nf(x) := x\np if f(input.missing)"];
    expect(await evaluate({ modules, query: "x = data.c.p", input: {} })).toEqual([]);
  });

  it("a parameter read by one definition only: an undefined argument fails that definition alone", async () => {
    const modules = ['package c\nf("any", _) := true\nf("pos", u) := u > 0\np if f("any", input.missing)\nq if f("pos", input.missing)\nr if not f("pos", input.missing)'];
    // A negated call's ref operands are evaluated before the negation (OPA's rewriteDynamics): r is never true.
    expect(await evaluate({ modules, query: "x = data.c", input: {} })).toEqual([{ x: { p: true } }]);
    expect(await evaluate({ modules, query: "x = data.c", input: { missing: 3 } })).toEqual([{ x: { p: true, q: true } }]);
  });

  it("a parameter read by one definition only: the other definitions still see defined arguments", async () => {
    const modules = ["package c\nf(_) := 1 if false\nf(x) := x if true\np := f(input.missing)\nq := f(input.n)"];
    expect(await evaluate({ modules, query: "x = data.c", input: { n: 5 } })).toEqual([{ x: { q: 5 } }]);
  });
});
