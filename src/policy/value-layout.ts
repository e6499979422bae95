/**
 * The runtime library's value cell tags and number representations, as the host and the
 * emitter read and write them (the library's own are in codegen/wasm/assembly/value.ts;
 * the layout is part of the contract, codegen/wasm/RUNTIME-API.md section 2).
 */
export const T_NULL = 1;
export const T_BOOLEAN = 2;
export const T_NUMBER = 3;
export const T_STRING = 4;
export const T_ARRAY = 5;
export const T_OBJECT = 6;
export const T_SET = 7;

export const N_INT = 1;
export const N_FLOAT = 2;
