// The OPA wasm ABI (1.2 and the legacy context path) on top of the generated
// functions imported from module `toolgate`.
import { alloc, heapGet, heapSet } from "./memory";
import { parseJSON, parseJSONProjected } from "./json-parse";
import { inputPathsNode } from "./input-paths";
import { dumpJSON, dumpRego } from "./json-print";
import { mkArray } from "./value";
import { internalError } from "./errors";

@external("toolgate", "eval")
declare function tg_eval(ctx: usize, entrypoint: i32, input: usize, data: usize): usize;
@external("toolgate", "entrypoints")
declare function tg_entrypoints(): usize;
@external("toolgate", "builtins")
declare function tg_builtins(): usize;

export const opa_wasm_abi_version: i32 = 1;
export const opa_wasm_abi_minor_version: i32 = 2;

// ctx: +0 input, +4 data, +8 result, +12 entrypoint
export function opa_eval_ctx_new(): usize {
  const c = alloc(16);
  memory.fill(c, 0, 16);
  return c;
}
export function opa_eval_ctx_set_input(ctx: usize, v: usize): void {
  store<u32>(ctx, <u32>v);
}
export function opa_eval_ctx_set_data(ctx: usize, v: usize): void {
  store<u32>(ctx, <u32>v, 4);
}
export function opa_eval_ctx_set_entrypoint(ctx: usize, ep: i32): void {
  store<i32>(ctx, ep, 12);
}
export function opa_eval_ctx_get_result(ctx: usize): usize {
  const r = <usize>load<u32>(ctx, 8);
  return r != 0 ? r : mkArray(0);
}

/** Legacy path: evaluates and stores the result set in the ctx; 0 = no error. */
export function eval(ctx: usize): i32 {
  const rs = tg_eval(ctx, load<i32>(ctx, 12), <usize>load<u32>(ctx), <usize>load<u32>(ctx, 4));
  store<u32>(ctx, <u32>rs, 8);
  return 0;
}

/** ABI 1.2 one-shot evaluation; returns NUL-terminated text of the result set. */
export function opa_eval(_reserved: i32, entrypoint: i32, data: usize, input: usize, inputLen: usize, heapPtr: usize, format: i32): usize {
  heapSet(heapPtr);
  let inp: usize = 0;
  if (inputLen > 0) {
    // only the parts of the input this entrypoint can read are built (input-paths.ts)
    inp = parseJSONProjected(input, inputLen, inputPathsNode(entrypoint));
    if (inp == 0) internalError("opa_eval: input is not valid JSON");
  }
  const ctx = opa_eval_ctx_new();
  store<u32>(ctx, <u32>inp);
  store<u32>(ctx, <u32>data, 4);
  store<i32>(ctx, entrypoint, 12);
  let rs = tg_eval(ctx, entrypoint, inp, data);
  if (rs == 0) rs = mkArray(0);
  store<u32>(ctx, <u32>rs, 8);
  return format == 1 ? dumpRego(rs) : dumpJSON(rs);
}

export function entrypoints(): usize {
  return tg_entrypoints();
}

export function builtins(): usize {
  return tg_builtins();
}

export function opa_malloc(n: usize): usize {
  return alloc(n);
}
export function opa_free(_p: usize): void {}
export function opa_heap_ptr_get(): usize {
  return heapGet();
}
export function opa_heap_ptr_set(p: usize): void {
  heapSet(p);
}
export function opa_json_parse(p: usize, n: usize): usize {
  return parseJSON(p, n);
}
export function opa_json_dump(v: usize): usize {
  return dumpJSON(v);
}
export function opa_value_dump(v: usize): usize {
  return dumpRego(v);
}
