/**
 * The numeric instructions the builder offers, by binaryen.js name: opcode,
 * operand count, result type. Conversions are nested by source type as in
 * binaryen.js (`m.i64.trunc_s_sat.f64(x)`, `m.f64.convert_s.i64(x)`).
 */
import type { Type } from "./types.js";
import { f64, i32, i64 } from "./types.js";

export interface NumericOp {
  readonly code: readonly number[];
  readonly arity: 1 | 2;
  readonly result: Type;
}

const bin = (code: number, result: Type): NumericOp => ({ code: [code], arity: 2, result });
const un = (code: number, result: Type, prefix?: number): NumericOp => ({ code: prefix === undefined ? [code] : [prefix, code], arity: 1, result });

const intOps = (base: { eqz: number; cmp: number; arith: number }, t: Type): Record<string, NumericOp> => {
  const cmp = ["eq", "ne", "lt_s", "lt_u", "gt_s", "gt_u", "le_s", "le_u", "ge_s", "ge_u"];
  const arith = ["add", "sub", "mul", "div_s", "div_u", "rem_s", "rem_u", "and", "or", "xor", "shl", "shr_s", "shr_u", "rotl", "rotr"];
  const out: Record<string, NumericOp> = { eqz: un(base.eqz, i32) };
  cmp.forEach((n, k) => (out[n] = bin(base.cmp + k, i32)));
  ["clz", "ctz", "popcnt"].forEach((n, k) => (out[n] = un(base.arith + k, t)));
  arith.forEach((n, k) => (out[n] = bin(base.arith + 3 + k, t)));
  return out;
};

export const I32_OPS: Record<string, NumericOp> = {
  ...intOps({ eqz: 0x45, cmp: 0x46, arith: 0x67 }, i32),
  wrap: un(0xa7, i32),
  extend8_s: un(0xc0, i32),
  extend16_s: un(0xc1, i32),
};

export const I64_OPS: Record<string, NumericOp> = {
  ...intOps({ eqz: 0x50, cmp: 0x51, arith: 0x79 }, i64),
  extend_s: un(0xac, i64),
  extend_u: un(0xad, i64),
  extend8_s: un(0xc2, i64),
  extend16_s: un(0xc3, i64),
  extend32_s: un(0xc4, i64),
};

export const F64_OPS: Record<string, NumericOp> = {
  eq: bin(0x61, i32), ne: bin(0x62, i32), lt: bin(0x63, i32), gt: bin(0x64, i32), le: bin(0x65, i32), ge: bin(0x66, i32),
  abs: un(0x99, f64), neg: un(0x9a, f64), ceil: un(0x9b, f64), floor: un(0x9c, f64), trunc: un(0x9d, f64), nearest: un(0x9e, f64), sqrt: un(0x9f, f64),
  add: bin(0xa0, f64), sub: bin(0xa1, f64), mul: bin(0xa2, f64), div: bin(0xa3, f64), min: bin(0xa4, f64), max: bin(0xa5, f64), copysign: bin(0xa6, f64),
};

/** Conversions: `[namespace][name][source type]`. */
export const CONVERSIONS: Record<"i32" | "i64" | "f64", Record<string, Record<string, NumericOp>>> = {
  i32: {
    trunc_s: { f64: un(0xaa, i32) },
    trunc_u: { f64: un(0xab, i32) },
    trunc_s_sat: { f64: un(0x02, i32, 0xfc) },
    trunc_u_sat: { f64: un(0x03, i32, 0xfc) },
  },
  i64: {
    trunc_s: { f64: un(0xb0, i64) },
    trunc_u: { f64: un(0xb1, i64) },
    trunc_s_sat: { f64: un(0x06, i64, 0xfc) },
    trunc_u_sat: { f64: un(0x07, i64, 0xfc) },
  },
  f64: {
    convert_s: { i32: un(0xb7, f64), i64: un(0xb9, f64) },
    convert_u: { i32: un(0xb8, f64), i64: un(0xba, f64) },
  },
};

/** Loads and stores: opcode and natural alignment in bytes. */
export const LOADS: Record<"i32" | "i64" | "f64", Record<string, readonly [number, number]>> = {
  i32: { load: [0x28, 4], load8_s: [0x2c, 1], load8_u: [0x2d, 1], load16_s: [0x2e, 2], load16_u: [0x2f, 2] },
  i64: { load: [0x29, 8], load8_s: [0x30, 1], load8_u: [0x31, 1], load16_s: [0x32, 2], load16_u: [0x33, 2], load32_s: [0x34, 4], load32_u: [0x35, 4] },
  f64: { load: [0x2b, 8] },
};
export const STORES: Record<"i32" | "i64" | "f64", Record<string, readonly [number, number]>> = {
  i32: { store: [0x36, 4], store8: [0x3a, 1], store16: [0x3b, 2] },
  i64: { store: [0x37, 8], store8: [0x3c, 1], store16: [0x3d, 2], store32: [0x3e, 4] },
  f64: { store: [0x39, 8] },
};
