/**
 * Builder functions linked into the runtime run as written: labels resolve to the
 * right depth after untargeted blocks are spliced away, `local.set; local.get`
 * becomes a tee with the same value, typed ifs and unreachable arms validate, and
 * calls reach the runtime's exports.
 */
import { describe, expect, it } from "vitest";
import { encodeFunction } from "../../codegen/wasm/link/encode-function.js";
import { exportedName, finishHeapBase, linkModule, readRuntime, replaceImport, validationError } from "../../codegen/wasm/link/index.js";
import type { Module } from "../../codegen/wasm/link/index.js";
import { createType, f64, i32, i64, none } from "../../codegen/wasm/link/types.js";

type Exports = Record<string, (...args: number[]) => number>;

function instantiate(build: (m: Module) => void): Exports {
  const m = readRuntime();
  for (const name of ["eval", "entrypoints", "builtins"] as const) {
    replaceImport(m, name, [], m.i32.const(0));
  }
  build(m);
  finishHeapBase(m);
  const { bytes } = linkModule(m);
  expect(validationError(bytes)).toBeNull();
  const memory = new WebAssembly.Memory({ initial: 5 });
  const env = { memory, opa_abort: () => { throw new Error("abort"); } };
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), { env });
  return instance.exports as unknown as Exports;
}

describe("module builder", () => {
  it("a set followed by a get of the same local is one tee, with the same result", () => {
    const m = readRuntime();
    const body = m.block(null, [
      m.local.set(1, m.i32.add(m.local.get(0, i32), m.i32.const(1))),
      m.if(m.i32.eqz(m.local.get(1, i32)), m.return(m.i32.const(99))),
      m.return(m.i32.mul(m.local.get(1, i32), m.i32.const(2))),
    ], i32);
    const fn = { name: "f", params: i32, results: i32, vars: [i32], body };
    const bytes = encodeFunction(fn, m.exprs, { func: () => 0, global: () => 0 });
    expect([...bytes]).toContain(0x22); // local.tee
    const x = instantiate((mm) => {
      mm.addFunction("f", i32, i32, [i32], mm.block(null, [
        mm.local.set(1, mm.i32.add(mm.local.get(0, i32), mm.i32.const(1))),
        mm.if(mm.i32.eqz(mm.local.get(1, i32)), mm.return(mm.i32.const(99))),
        mm.return(mm.i32.mul(mm.local.get(1, i32), mm.i32.const(2))),
      ], i32));
      mm.addFunctionExport("f", "f");
    });
    expect(x.f!(4)).toBe(10);
    expect(x.f!(-1)).toBe(99);
  });

  it("branches out of spliced blocks and loops reach the label they name", () => {
    const x = instantiate((m) => {
      // sum of 0..n-1, skipping 3, through unnamed blocks nested inside the loop
      const get = (l: number): number => m.local.get(l, i32);
      m.addFunction("sum", i32, i32, [i32, i32], m.block(null, [
        m.block("exit", [
          m.loop("next", m.block(null, [
            m.br("exit", m.i32.ge_s(get(1), get(0))),
            m.block("skip", [
              m.block(null, [m.br("skip", m.i32.eq(get(1), m.i32.const(3)))]),
              m.local.set(2, m.i32.add(get(2), get(1))),
            ]),
            m.local.set(1, m.i32.add(get(1), m.i32.const(1))),
            m.br("next"),
          ])),
        ]),
        get(2),
      ], i32));
      m.addFunctionExport("sum", "sum");
    });
    expect(x.sum!(6)).toBe(0 + 1 + 2 + 4 + 5);
    expect(x.sum!(0)).toBe(0);
  });

  it("typed ifs, ifs whose arms both return, select, memory and 64-bit and float conversions", () => {
    const x = instantiate((m) => {
      const p = (l: number, t = i32): number => m.local.get(l, t);
      m.addFunction("pick", createType([i32, i32]), i32, [], m.if(p(0), m.i32.const(7), p(1)));
      m.addFunction("both", i32, i32, [], m.block(null, [m.if(p(0), m.return(m.i32.const(1)), m.return(m.i32.const(2)))], i32));
      m.addFunction("sel", i32, i32, [], m.select(p(0), m.i32.const(10), m.i32.const(20)));
      m.addFunction("mem", i32, i32, [], m.block(null, [
        m.i32.store8(0, 1, m.i32.const(1 << 16), p(0)),
        m.i32.load8_u(0, 1, m.i32.const(1 << 16)),
      ], i32));
      m.addFunction("sat", f64, i32, [], m.i32.wrap(m.i64.shr_u(m.i64.trunc_s_sat.f64(p(0, f64)), m.i64.const(32n))));
      m.addFunction("back", i32, f64, [], m.f64.convert_s.i64(m.i64.extend_s(p(0))));
      m.addGlobal("g", i64, true, m.i64.const(5, 1));
      m.addFunction("glob", none, i32, [], m.block(null, [
        m.global.set("g", m.i64.add(m.global.get("g", i64), m.i64.const(1n))),
        m.i32.wrap(m.i64.shr_u(m.global.get("g", i64), m.i64.const(32n))),
      ], i32));
      for (const n of ["pick", "both", "sel", "mem", "sat", "back", "glob"]) m.addFunctionExport(n, n);
    });
    expect(x.pick!(1, 3)).toBe(7);
    expect(x.pick!(0, 3)).toBe(3);
    expect(x.both!(1)).toBe(1);
    expect(x.both!(0)).toBe(2);
    expect(x.sel!(1)).toBe(10);
    expect(x.sel!(0)).toBe(20);
    expect(x.mem!(0x1ff)).toBe(0xff);
    expect(x.sat!(2 ** 40)).toBe(2 ** 8);
    expect(x.sat!(Infinity)).toBe(0x7fffffff);
    expect(x.back!(-3)).toBe(-3);
    expect(x.glob!()).toBe(1);
  });

  it("generated code calls the runtime's exports", () => {
    const x = instantiate((m) => {
      const call = (name: string, args: number[]): number => m.call(exportedName(m, name), args, i32);
      m.addFunction("tag", none, i32, [], call("opa_value_type", [call("opa_boolean", [m.i32.const(1)])]));
      m.addFunctionExport("tag", "tag");
    });
    expect(x.tag!()).toBe(2); // boolean
  });
});
