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

const utf8 = new TextEncoder();

/** The runtime's order of strings (object keys, set members): bytewise on UTF-8, a prefix first. */
export function compareUtf8(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}
