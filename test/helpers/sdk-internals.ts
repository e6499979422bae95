/** The opa-wasm SDK's LoadedPolicy as its JavaScript has it: the module exports and fields its .d.ts does not name. */
/** The module exports the SDK calls (its JavaScript reaches them; its .d.ts does not name them). */
export interface SdkExports {
  readonly opa_heap_ptr_set: (p: number) => void;
  readonly opa_json_parse: (addr: number, len: number) => number;
  readonly opa_json_dump: (value: number) => number;
  readonly opa_eval_ctx_new: () => number;
  readonly opa_eval_ctx_set_input: (ctx: number, v: number) => void;
  readonly opa_eval_ctx_set_data: (ctx: number, v: number) => void;
  readonly opa_eval_ctx_set_entrypoint: (ctx: number, ep: number) => void;
  readonly opa_eval_ctx_get_result: (ctx: number) => number;
  readonly eval: (ctx: number) => number;
  readonly opa_eval: (reserved: number, ep: number, data: number, input: number, len: number, heap: number, format: number) => number;
}

/** The fields of the SDK's LoadedPolicy the stages use (public in its JavaScript, untyped in its .d.ts). */
export interface SdkInternals {
  readonly wasmInstance: { readonly exports: SdkExports };
  readonly mem: { readonly buffer: ArrayBuffer };
  readonly dataAddr: number;
  readonly dataHeapPtr: number;
}
