/**
 * Static values are never young: a host that uses the legacy ABI without first saving
 * or setting the heap pointer must not have the runtime attach heap cells (an input's
 * key cell) to a static object, or the object would read freed memory after the host
 * resets the heap.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";

const POLICY = `package p
table := {"alpha": 1, "beta": 2, "gamma": 3}
result := table[input.k]
`;

interface Exports {
  memory: WebAssembly.Memory;
  opa_malloc(n: number): number;
  opa_json_parse(p: number, n: number): number;
  opa_eval_ctx_new(): number;
  opa_eval_ctx_set_input(ctx: number, v: number): void;
  opa_eval_ctx_set_entrypoint(ctx: number, e: number): void;
  opa_eval_ctx_get_result(ctx: number): number;
  opa_json_dump(v: number): number;
  opa_heap_ptr_set(p: number): void;
  eval(ctx: number): number;
}

describe("static data and the heap epoch", () => {
  it("a static object looked up with an input's key still answers after the host resets the heap", async () => {
    const r = compilePolicy({ modules: [{ file: "p.rego", source: POLICY }], entrypoints: ["p/result"] });
    expect(r.errors).toEqual([]);
    const memory = new WebAssembly.Memory({ initial: 5 });
    const noop = (): number => 0;
    const { instance } = await WebAssembly.instantiate(r.wasm! as Uint8Array<ArrayBuffer>, {
      env: {
        memory,
        opa_abort: (p: number) => {
          throw new Error(`opa_abort at ${p}`);
        },
        opa_println: noop, opa_builtin0: noop, opa_builtin1: noop, opa_builtin2: noop, opa_builtin3: noop, opa_builtin4: noop,
      },
    });
    const x = instance.exports as unknown as Exports;
    const text = (p: number): string => {
      const bytes = new Uint8Array(memory.buffer, p);
      return new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(0)));
    };
    const evaluate = (input: string): { at: number; result: string } => {
      const bytes = new TextEncoder().encode(input);
      const at = x.opa_malloc(bytes.length);
      new Uint8Array(memory.buffer).set(bytes, at);
      const ctx = x.opa_eval_ctx_new();
      x.opa_eval_ctx_set_input(ctx, x.opa_json_parse(at, bytes.length));
      x.opa_eval_ctx_set_entrypoint(ctx, 0);
      expect(x.eval(ctx)).toBe(0);
      return { at, result: text(x.opa_json_dump(x.opa_eval_ctx_get_result(ctx))) };
    };
    const first = evaluate(`{"k": "gamma"}`);
    expect(JSON.parse(first.result)).toEqual([{ result: 3 }]);
    // The host reuses the memory of the first evaluation, overwriting the input's cells.
    x.opa_heap_ptr_set(first.at);
    evaluate(`{"k": "zzzzz", "pad": "${"z".repeat(200)}"}`);
    x.opa_heap_ptr_set(first.at);
    evaluate(`{"k": "qqqqq", "pad": "${"q".repeat(200)}"}`);
    expect(JSON.parse(evaluate(`{"k": "gamma"}`).result)).toEqual([{ result: 3 }]);
    expect(JSON.parse(evaluate(`{"k": "alpha"}`).result)).toEqual([{ result: 1 }]);
  });
});
