/**
 * Every argument of a call is evaluated before the call, as in OPA, whose compiler
 * lifts a ref argument into `__localN__ = ref` ahead of the call (ast/compile.go,
 * rewriteDynamics): an undefined argument makes the call undefined even where the
 * function never reads the parameter.
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "../wasm-emit/sdk-harness.js";

describe("call arguments are evaluated before the call", () => {
  it("an undefined argument for a wildcard parameter makes the call undefined", async () => {
    const modules = ["package c\nf(_) := true\np if f(input.missing)"];
    expect(await evaluate({ modules, query: "x = data.c.p", input: {} })).toEqual([]);
    expect(await evaluate({ modules, query: "x = data.c.p", input: { missing: 1 } })).toEqual([{ x: true }]);
  });

  it("an undefined argument for a named, unread parameter makes the call undefined", async () => {
    const modules = ['package c\nf(obj, name) := name\np := f(input.missing, "n")'];
    expect(await evaluate({ modules, query: "x = data.c.p", input: {} })).toEqual([]);
  });

  it("an undefined argument for a parameter that is read makes the call undefined", async () => {
    const modules = ["package c\nf(x) := x\np if f(input.missing)"];
    expect(await evaluate({ modules, query: "x = data.c.p", input: {} })).toEqual([]);
  });

  it("an undefined argument fails every definition, also those that do not read it", async () => {
    const modules = ['package c\nf("any", _) := true\nf("pos", u) := u > 0\np if f("any", input.missing)\nq if f("pos", input.missing)\nr if not f("pos", input.missing)'];
    // A negated call's ref operands are evaluated before the negation too: r is never true.
    expect(await evaluate({ modules, query: "x = data.c", input: {} })).toEqual([{ x: {} }]);
    expect(await evaluate({ modules, query: "x = data.c", input: { missing: 3 } })).toEqual([{ x: { p: true, q: true } }]);
  });

  it("an undefined ref inside a composite argument makes the call undefined", async () => {
    const modules = ["package c\nf(_) := true\np if f([input.missing])\nq if f({\"k\": input.missing})"];
    expect(await evaluate({ modules, query: "x = data.c", input: {} })).toEqual([{ x: {} }]);
  });

  it("every definition sees the arguments when they are defined", async () => {
    const modules = ["package c\nf(_) := 1 if false\nf(x) := x if true\np := f(input.missing)\nq := f(input.n)"];
    expect(await evaluate({ modules, query: "x = data.c", input: { n: 5 } })).toEqual([{ x: { q: 5 } }]);
  });
});
