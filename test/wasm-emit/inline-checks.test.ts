/**
 * Type tests (`is_string(x)` ...) and comparisons with a boolean constant are lowered
 * to inline reads of the value cell: they answer as the runtime's builtins and
 * `tg_value_equal` do for every kind of value, and an undefined operand stays undefined.
 * Constant-key lookups in the input and data documents are made once per call: a
 * document replaced by `with` is another value and is looked up anew.
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "./sdk-harness.js";

const VALUES: unknown[] = [null, true, false, 0, 1, 2.5, "", "true", [], [true], {}, { a: true }];
const TYPES = ["null", "boolean", "number", "string", "array", "object", "set"];

describe("inline checks", () => {
  it("is_* type tests agree with type_name for every kind of value, and are undefined for an undefined operand", async () => {
    const tests = TYPES.map((t) => `"${t}": is_${t}(x)`).join(", ");
    const src = `package t
r := [[type_name(x), {${tests}}] | some x in array.concat(input.vs, [{1, 2}])]
u := {"u": is_string(input.missing)}`;
    const [{ result }] = (await evaluate({ modules: [src], entrypoint: "t/r", input: { vs: VALUES } })) as [{ result: [string, Record<string, boolean>][] }];
    expect(result).toHaveLength(VALUES.length + 1);
    for (const [name, got] of result) {
      expect(got).toEqual(Object.fromEntries(TYPES.map((t) => [t, t === name])));
    }
    expect(await evaluate({ modules: [src], entrypoint: "t/u", input: {} })).toEqual([]);
  });

  it("comparisons with true and false match only the boolean of that value", async () => {
    const src = `package t
r := [
  [i | some i, x in input.vs; x == true],
  [i | some i, x in input.vs; x == false],
  [i | some i, x in input.vs; x != true],
  [i | some i, x in input.vs; false != x],
]`;
    const [{ result }] = (await evaluate({ modules: [src], entrypoint: "t/r", input: { vs: VALUES } })) as [{ result: number[][] }];
    const where = (f: (v: unknown) => boolean): number[] => VALUES.flatMap((v, i) => (f(v) ? [i] : []));
    expect(result).toEqual([where((v) => v === true), where((v) => v === false), where((v) => v !== true), where((v) => v !== false)]);
  });

  it("comparisons with null match only null", async () => {
    const src = `package t
r := [[i | some i, x in input.vs; x == null], [i | some i, x in input.vs; null != x]]`;
    const [{ result }] = (await evaluate({ modules: [src], entrypoint: "t/r", input: { vs: VALUES } })) as [{ result: number[][] }];
    const where = (f: (v: unknown) => boolean): number[] => VALUES.flatMap((v, i) => (f(v) ? [i] : []));
    expect(result).toEqual([where((v) => v === null), where((v) => v !== null)]);
  });

  it("input lookups made once per call still see each with-replaced input and data", async () => {
    const src = `package t
r := input.a
d := data.k
q := [input.a, y, input.a, z, input.a, w, data.k, v, data.k] if {
  y := r with input as {"a": 2}
  z := input.a with input as {"a": 3}
  w := input.a with input.a as 4
  v := d with data.k as "mock"
}`;
    expect(await evaluate({ modules: [src], entrypoint: "t/q", input: { a: 1 }, data: { k: "base" } })).toEqual([
      { result: [1, 2, 1, 3, 1, 4, "base", "mock", "base"] },
    ]);
  });
});
