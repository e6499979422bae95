/**
 * `with f as <value reading locals>`: the value is computed where the `with` is and
 * reaches calls of `f` in other rules as an extra parameter of the functions
 * planned under the replacement.
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "../wasm-emit/sdk-harness.js";

describe("a function replaced by a value that reads locals", () => {
  it("reaches a call in another rule", async () => {
    const modules = ["package c\nf(x) := x\nq := f(1)\np := v if { y := input.n * 2; v := q with f as y }"];
    expect(await evaluate({ modules, query: "x = data.c.p", input: { n: 21 } })).toEqual([{ x: 42 }]);
  });

  it("reaches calls two rules away, and each with has its own value", async () => {
    const modules = ["package c\nf(x) := x\nq := f(1)\nr := q + 1\np := [a, b] if { y := 10; a := r with f as y; z := 20; b := r with f as z }"];
    expect(await evaluate({ modules, query: "x = data.c.p" })).toEqual([{ x: [11, 21] }]);
  });

  it("replaces a builtin for a call in another rule", async () => {
    const modules = ['package c\nq := count([1, 2, 3])\np := v if { n := input.n; v := q with count as n }'];
    expect(await evaluate({ modules, query: "x = data.c.p", input: { n: 7 } })).toEqual([{ x: 7 }]);
  });

  it("is evaluated where the with is: a composite value with a call over locals", async () => {
    const modules = ['package c\nf(x) := x\nq := f(1)\np := v if { xs := [1, 2]; v := q with f as {"n": count(xs), "xs": xs} }'];
    expect(await evaluate({ modules, query: "x = data.c.p" })).toEqual([{ x: { n: 2, xs: [1, 2] } }]);
  });
});
