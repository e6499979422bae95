/**
 * What a builtin call costs in fuel, charged at the call site before the call (the
 * runtime library's loops are not counted inside it). One unit is about one scan
 * iteration's work:
 *  - `numbers.range(a, b)` costs the size of the array it makes, |b - a| + 1;
 *  - a builtin in `CONSTANT_WORK` costs nothing (arithmetic, comparisons, type tests,
 *    hashed lookups, clocks);
 *  - any other builtin costs the size of its operands: one unit per element of an
 *    array, object or set (top level) and one per 64 bytes of a string.
 * Sizes are read from the value cells (`RUNTIME-API.md` section 2); literal string
 * operands are priced at build time.
 */
import * as binaryen from "../link/builder-api.js";
import { N_FLOAT, N_INT, T_ARRAY, T_NUMBER, T_STRING } from "../../../src/policy/abi.js";

type Ref = binaryen.ExpressionRef;
const i32 = binaryen.i32;
const i64 = binaryen.i64;
const f64 = binaryen.f64;

const OPERAND_COST = "tg_fuel_operand_cost";
const RANGE_COST = "tg_fuel_range_cost";
/** log2 of the string bytes one unit pays for. */
const STRING_SHIFT = 6;


/** Builtins whose work does not grow with their operands' size (or is a hashed lookup). */
const CONSTANT_WORK = new Set([
  "eq", "assign", "equal", "neq", "lt", "gt", "lte", "gte", "internal.member_2", "internal.member_3",
  "plus", "mul", "div", "rem", "abs", "round", "ceil", "floor",
  "bits.or", "bits.and", "bits.negate", "bits.xor", "bits.lsh", "bits.rsh",
  "count", "object.get", "is_number", "is_string", "is_boolean", "is_array", "is_set", "is_object", "is_null",
  "type_name", "time.now_ns", "opa.runtime", "rand.intn", "format_int",
]);

/** One operand of a builtin call: a value at run time, or a literal known at build time. */
export type CostOperand = { readonly kind: "value"; readonly ref: () => Ref } | { readonly kind: "string"; readonly bytes: number } | { readonly kind: "scalar" };

export class FuelBuiltins {
  private installed = false;

  constructor(private readonly m: binaryen.Module) {}

  /** The i64 cost of calling `name` with `operands`, or null when it is free. */
  cost(name: string, operands: readonly CostOperand[]): Ref | null {
    const m = this.m;
    if (name === "numbers.range") {
      const [a, b] = operands;
      if (a?.kind !== "value" || b?.kind !== "value") return null;
      this.install();
      return m.call(RANGE_COST, [a.ref(), b.ref()], i64);
    }
    if (CONSTANT_WORK.has(name)) return null;
    let fixed = 0;
    const dynamic: Ref[] = [];
    for (const o of operands) {
      if (o.kind === "string") fixed += o.bytes >>> STRING_SHIFT;
      else if (o.kind === "value") {
        this.install();
        dynamic.push(m.call(OPERAND_COST, [o.ref()], i64));
      }
    }
    if (dynamic.length === 0 && fixed === 0) return null;
    const terms = fixed === 0 ? dynamic : [m.i64.const(BigInt(fixed)), ...dynamic];
    return terms.reduce((sum, c) => m.i64.add(sum, c));
  }

  private install(): void {
    if (this.installed) return;
    this.installed = true;
    const m = this.m;
    const v = (): Ref => m.local.get(0, i32);
    const tag = (): Ref => m.i32.load8_u(0, 1, v());
    const length = (): Ref => m.i64.extend_u(m.i32.load(4, 4, v()));
    // (v) -> i64: collections by element count, strings by 64-byte chunks, scalars and undefined free.
    m.addFunction(OPERAND_COST, binaryen.createType([i32]), i64, [], m.block(null, [
      m.if(m.i32.eqz(v()), m.return(m.i64.const(0n))),
      m.if(m.i32.ge_u(tag(), m.i32.const(T_ARRAY)), m.return(length())),
      m.if(m.i32.eq(tag(), m.i32.const(T_STRING)), m.return(m.i64.shr_u(length(), m.i64.const(BigInt(STRING_SHIFT))))),
      m.i64.const(0n),
    ], i64));
    // (a, b) -> i64: |b - a| + 1 for two integers or floats, saturating; other operands (which the builtin rejects) free.
    const num = (local: number): Ref => {
      const at = (): Ref => m.local.get(local, i32);
      const repr = (): Ref => m.i32.load8_u(1, 1, at());
      return m.if(
        m.i32.eq(repr(), m.i32.const(N_INT)),
        m.f64.convert_s.i64(m.i64.load(8, 8, at())),
        m.if(m.i32.eq(repr(), m.i32.const(N_FLOAT)), m.f64.load(8, 8, at()), m.f64.const(0)),
      );
    };
    // Address 0 (an undefined operand) is readable memory, so testing its tag is safe.
    const isNumber = (local: number): Ref =>
      m.i32.and(m.i32.ne(m.local.get(local, i32), m.i32.const(0)), m.i32.eq(m.i32.load8_u(0, 1, m.local.get(local, i32)), m.i32.const(T_NUMBER)));
    m.addFunction(RANGE_COST, binaryen.createType([i32, i32]), i64, [], m.block(null, [
      m.if(m.i32.eqz(m.i32.and(isNumber(0), isNumber(1))), m.return(m.i64.const(0n))),
      m.i64.trunc_s_sat.f64(m.f64.add(m.f64.abs(m.f64.sub(num(1), num(0))), m.f64.const(1))),
    ], i64));
  }
}
