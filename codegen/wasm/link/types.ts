/**
 * Value types of the module builder, numbered as binaryen.js numbers its basic
 * types so the emitter's `binaryen.i32`-style code reads the same; a multi-value
 * type (function parameters) is an id from `createType`.
 */
import { LinkError, VALTYPE } from "./bytes.js";

export type Type = number;

export const none: Type = 0;
export const unreachable: Type = 1;
export const i32: Type = 2;
export const i64: Type = 3;
export const f32: Type = 4;
export const f64: Type = 5;
/** A block whose type is its last child's. */
export const auto: Type = -1;

const TUPLE_BASE = 1000;
const tuples: Type[][] = [];
const tupleIds = new Map<string, Type>();

/** The type of a sequence of values (`none` for none, the type itself for one). */
export function createType(types: readonly Type[]): Type {
  if (types.length === 0) return none;
  if (types.length === 1) return types[0]!;
  const key = types.join(",");
  let id = tupleIds.get(key);
  if (id === undefined) {
    id = TUPLE_BASE + tuples.length;
    tuples.push([...types]);
    tupleIds.set(key, id);
  }
  return id;
}

export function expandType(t: Type): Type[] {
  if (t === none) return [];
  if (t >= TUPLE_BASE) return [...tuples[t - TUPLE_BASE]!];
  return [t];
}

/** The binary value-type code. */
export function valtype(t: Type): number {
  switch (t) {
    case i32: return VALTYPE.i32;
    case i64: return VALTYPE.i64;
    case f32: return VALTYPE.f32;
    case f64: return VALTYPE.f64;
  }
  throw new LinkError(`no value type for type ${t}`);
}
