/**
 * Hand-made "plans" linked into runtime.wasm with binaryen.js, standing in for the
 * backend: they exercise the linking contract of RUNTIME-API.md without a compiler.
 * Entrypoints: 0 test/echo (input), 1 test/const (a JSON constant from static data),
 * 2 test/data (data), 3 test/builtin (calls a native builtin export on input.args),
 * 4 test/conflict (raises eval_conflict_error through opa_runtime_error).
 */
import binaryen from "binaryen";
import {
  appendStaticData, exportedName, finishHeapBase, readRuntime, replaceImport, setStrictBuiltinErrors,
} from "../../codegen/wasm/runtime-link.js";

export interface FixtureOptions {
  /** JSON text returned by test/const. */
  readonly constant?: string;
  /** Native builtin export called by test/builtin with the elements of input.args. */
  readonly builtin?: { readonly exportName: string; readonly arity: number };
  /** Legacy ABI: re-export opa_wasm_abi_minor_version as 1. */
  readonly legacy?: boolean;
  readonly strict?: boolean;
}

export const ENTRYPOINTS = ["test/echo", "test/const", "test/data", "test/builtin", "test/conflict"] as const;

const i32 = binaryen.i32;

export function buildFixture(opts: FixtureOptions = {}): Uint8Array<ArrayBuffer> {
  const m = readRuntime();
  const fn = (name: string): string => exportedName(m, name);
  const enc = new TextEncoder();
  const cstr = (s: string): number => appendStaticData(m, enc.encode(`${s}\0`));
  const i64c = (n: number): number => m.i64.const(BigInt(n));
  const strValue = (addr: number, len: number): number =>
    m.call(fn("opa_string"), [m.i32.const(addr), m.i32.const(len)], i32);

  const resultKey = cstr("result");
  const argsKey = cstr("args");
  const constText = enc.encode(opts.constant ?? '{"b":[1,2.5,"x"],"a":null}');
  const constAddr = appendStaticData(m, constText);
  const conflictFile = cstr("policy.rego");
  const conflictMsg = cstr("eval_conflict_error: complete rules must not produce multiple outputs");
  const names = ENTRYPOINTS.map((e) => ({ addr: cstr(e), len: enc.encode(e).length }));

  // wrap(v): 0 -> 0 (empty result set); else {{"result": v}}
  m.addFunction("fixture_wrap", binaryen.createType([i32]), i32, [i32, i32], m.block(null, [
    m.if(m.i32.eqz(m.local.get(0, i32)), m.return(m.i32.const(0))),
    m.local.set(1, m.call(fn("opa_object"), [], i32)),
    m.call(fn("opa_object_insert"), [m.local.get(1, i32), strValue(resultKey, 6), m.local.get(0, i32)], binaryen.none),
    m.local.set(2, m.call(fn("opa_set"), [], i32)),
    m.call(fn("opa_set_add"), [m.local.get(2, i32), m.local.get(1, i32)], binaryen.none),
    m.return(m.local.get(2, i32)),
  ], binaryen.auto));
  const wrap = (v: number): number => m.return(m.call("fixture_wrap", [v], i32));

  // test/builtin: input.args[i] for each operand
  const arity = opts.builtin?.arity ?? 0;
  const argExpr = (i: number): number =>
    m.call(fn("opa_value_get"), [
      m.call(fn("opa_value_get"), [m.local.get(2, i32), strValue(argsKey, 4)], i32),
      m.call(fn("opa_number_int"), [i64c(i)], i32),
    ], i32);
  const builtinCall = opts.builtin === undefined
    ? m.i32.const(0)
    : m.call(fn(opts.builtin.exportName), Array.from({ length: arity }, (_, i) => argExpr(i)), i32);

  const ep = (): number => m.local.get(1, i32); // binaryen nodes must not be shared
  replaceImport(m, "eval", [], m.block(null, [
    m.if(m.i32.eq(ep(), m.i32.const(0)), wrap(m.local.get(2, i32))),
    m.if(m.i32.eq(ep(), m.i32.const(1)), wrap(m.call(fn("opa_json_parse"), [m.i32.const(constAddr), m.i32.const(constText.length)], i32))),
    m.if(m.i32.eq(ep(), m.i32.const(2)), wrap(m.local.get(3, i32))),
    m.if(m.i32.eq(ep(), m.i32.const(3)), wrap(builtinCall)),
    m.if(m.i32.eq(ep(), m.i32.const(4)), m.block(null, [
      m.call(fn("opa_runtime_error"), [m.i32.const(conflictFile), m.i32.const(3), m.i32.const(5), m.i32.const(conflictMsg)], binaryen.none),
      m.unreachable(),
    ], binaryen.auto)),
    m.return(m.i32.const(0)),
  ], binaryen.auto));

  // entrypoints(): {"test/echo": 0, ...}
  const entries = names.map((n, i) =>
    m.call(fn("opa_object_insert"), [
      m.local.get(0, i32), strValue(n.addr, n.len), m.call(fn("opa_number_int"), [i64c(i)], i32),
    ], binaryen.none));
  replaceImport(m, "entrypoints", [i32], m.block(null, [
    m.local.set(0, m.call(fn("opa_object"), [], i32)),
    ...entries,
    m.return(m.local.get(0, i32)),
  ], binaryen.auto));
  replaceImport(m, "builtins", [], m.call(fn("opa_object"), [], i32));
  if (opts.strict === true) setStrictBuiltinErrors(m, true);
  if (opts.legacy === true) {
    const g = fn("opa_wasm_abi_minor_version");
    m.removeGlobal(g);
    m.addGlobal(g, i32, false, m.i32.const(1));
  }
  finishHeapBase(m);
  if (!m.validate()) throw new Error("fixture module does not validate");
  m.optimize();
  const bytes = new Uint8Array(m.emitBinary());
  m.dispose();
  return bytes;
}
