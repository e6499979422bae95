/**
 * A module builder with the subset of binaryen.js's `Module` API the emitter uses
 * (`m.block`, `m.call`, `m.i32.const`, `m.addFunction`, ...), written straight to
 * Wasm bytes by `link.ts` next to the runtime library instead of going through
 * binaryen. Functions and globals are named; names resolve to indices when the
 * module is linked. Runtime exports and imports are reached through the names
 * `runtime-symbols.ts` hands out.
 */
import { ExprArena } from "./expr.js";
import type { Expr, ExpressionRef } from "./expr.js";
import { CONVERSIONS, F64_OPS, I32_OPS, I64_OPS, LOADS, STORES } from "./numeric-ops.js";
import type { NumericOp } from "./numeric-ops.js";
import type { RuntimeLibrary } from "./runtime-library.js";
import { LinkError } from "./bytes.js";
import { f64, i32, i64, none, unreachable } from "./types.js";
import type { Type } from "./types.js";

export type { ExpressionRef } from "./expr.js";

export interface FunctionDef {
  readonly name: string;
  readonly params: Type;
  readonly results: Type;
  readonly vars: readonly Type[];
  readonly body: ExpressionRef;
}

export interface ImportDef {
  readonly name: string;
  readonly module: string;
  readonly base: string;
  readonly params: Type;
  readonly results: Type;
}

export interface GlobalDef {
  readonly name: string;
  readonly type: Type;
  readonly mutable: boolean;
  readonly init: ExpressionRef;
}

type Unary = (value: ExpressionRef) => ExpressionRef;
type Binary = (left: ExpressionRef, right: ExpressionRef) => ExpressionRef;
type Load = (offset: number, align: number, ptr: ExpressionRef) => ExpressionRef;
type Store = (offset: number, align: number, ptr: ExpressionRef, value: ExpressionRef) => ExpressionRef;

/** `m.i32` / `m.i64`: binaryen.js names (`align` in bytes, 0 for natural). */
interface IntNamespace {
  const(value: number | bigint, high?: number): ExpressionRef;
  eqz: Unary; clz: Unary; ctz: Unary; popcnt: Unary;
  eq: Binary; ne: Binary; lt_s: Binary; lt_u: Binary; gt_s: Binary; gt_u: Binary; le_s: Binary; le_u: Binary; ge_s: Binary; ge_u: Binary;
  add: Binary; sub: Binary; mul: Binary; div_s: Binary; div_u: Binary; rem_s: Binary; rem_u: Binary;
  and: Binary; or: Binary; xor: Binary; shl: Binary; shr_s: Binary; shr_u: Binary; rotl: Binary; rotr: Binary;
  extend8_s: Unary; extend16_s: Unary;
  trunc_s: { f64: Unary }; trunc_u: { f64: Unary }; trunc_s_sat: { f64: Unary }; trunc_u_sat: { f64: Unary };
  load: Load; load8_s: Load; load8_u: Load; load16_s: Load; load16_u: Load;
  store: Store; store8: Store; store16: Store;
}
export interface I32Namespace extends IntNamespace {
  wrap: Unary;
}
export interface I64Namespace extends IntNamespace {
  extend_s: Unary; extend_u: Unary; extend32_s: Unary;
  load32_s: Load; load32_u: Load; store32: Store;
}
export interface F64Namespace {
  const(value: number): ExpressionRef;
  eq: Binary; ne: Binary; lt: Binary; gt: Binary; le: Binary; ge: Binary;
  abs: Unary; neg: Unary; ceil: Unary; floor: Unary; trunc: Unary; nearest: Unary; sqrt: Unary;
  add: Binary; sub: Binary; mul: Binary; div: Binary; min: Binary; max: Binary; copysign: Binary;
  convert_s: { i32: Unary; i64: Unary }; convert_u: { i32: Unary; i64: Unary };
  load: Load; store: Store;
}

export class Module {
  readonly exprs = new ExprArena();
  /** Defined functions in the order added (replaced imports included). */
  readonly functions: FunctionDef[] = [];
  readonly imports: ImportDef[] = [];
  readonly globals: GlobalDef[] = [];
  readonly exports: { readonly internal: string; readonly external: string }[] = [];
  readonly customSections: { readonly name: string; readonly bytes: Uint8Array }[] = [];
  /** New initialisers of runtime globals, by global index. */
  readonly globalInits = new Map<number, ExpressionRef>();
  /** Active data segments placed after the runtime's data. */
  readonly data: { readonly offset: number; readonly bytes: Uint8Array }[] = [];
  private readonly names = new Set<string>();

  readonly i32: I32Namespace;
  readonly i64: I64Namespace;
  readonly f64: F64Namespace;

  constructor(readonly runtime: RuntimeLibrary) {
    this.i32 = this.namespace("i32", i32, I32_OPS) as unknown as I32Namespace;
    this.i64 = this.namespace("i64", i64, I64_OPS) as unknown as I64Namespace;
    this.f64 = this.namespace("f64", f64, F64_OPS) as unknown as F64Namespace;
  }

  private add(e: Expr): ExpressionRef {
    return this.exprs.add(e);
  }

  private namespace(key: "i32" | "i64" | "f64", type: Type, ops: Record<string, NumericOp>): Record<string, unknown> {
    const ns: Record<string, unknown> = {
      // binaryen.js also takes an i64 as two 32-bit halves.
      const: (value: number | bigint, high?: number) =>
        this.add({ op: "const", type, value: high === undefined ? value : (BigInt(high) << 32n) | BigInt(Number(value) >>> 0) }),
    };
    const numeric = (op: NumericOp) => (...operands: ExpressionRef[]): ExpressionRef => {
      if (operands.length !== op.arity) throw new LinkError(`${key} instruction takes ${op.arity} operands, got ${operands.length}`);
      return this.add({ op: "numeric", type: op.result, code: op.code, operands });
    };
    for (const [name, op] of Object.entries(ops)) ns[name] = numeric(op);
    for (const [name, bySource] of Object.entries(CONVERSIONS[key])) {
      ns[name] = Object.fromEntries(Object.entries(bySource).map(([src, op]) => [src, numeric(op)]));
    }
    for (const [name, [code, natural]] of Object.entries(LOADS[key])) {
      ns[name] = (offset: number, align: number, ptr: ExpressionRef) => this.add({ op: "load", type, code, align: align || natural, offset, ptr });
    }
    for (const [name, [code, natural]] of Object.entries(STORES[key])) {
      ns[name] = (offset: number, align: number, ptr: ExpressionRef, value: ExpressionRef) =>
        this.add({ op: "store", type: none, code, align: align || natural, offset, ptr, value });
    }
    return ns;
  }

  readonly local = {
    get: (index: number, type: Type): ExpressionRef => this.add({ op: "local.get", type, index }),
    set: (index: number, value: ExpressionRef): ExpressionRef => this.add({ op: "local.set", type: none, index, value, tee: false }),
    tee: (index: number, value: ExpressionRef, type: Type): ExpressionRef => this.add({ op: "local.set", type, index, value, tee: true }),
  };

  readonly global = {
    get: (name: string, type: Type): ExpressionRef => this.add({ op: "global.get", type, name }),
    set: (name: string, value: ExpressionRef): ExpressionRef => this.add({ op: "global.set", type: none, name, value }),
  };

  readonly memory = {
    size: (): ExpressionRef => this.add({ op: "memory.size", type: i32 }),
    grow: (delta: ExpressionRef): ExpressionRef => this.add({ op: "memory.grow", type: i32, delta }),
  };

  block(label: string | null, children: readonly ExpressionRef[], type?: Type): ExpressionRef {
    return this.add({ op: "block", type: this.exprs.blockType(children, type), label, children: [...children] });
  }

  loop(label: string | null, body: ExpressionRef): ExpressionRef {
    return this.add({ op: "loop", type: this.exprs.type(body), label, body });
  }

  if(cond: ExpressionRef, then: ExpressionRef, otherwise?: ExpressionRef): ExpressionRef {
    const e = otherwise ?? null;
    return this.add({ op: "if", type: this.exprs.ifType(then, e), cond, then, else: e });
  }

  br(label: string, cond?: ExpressionRef, value?: ExpressionRef): ExpressionRef {
    const c = cond ?? null;
    const v = value ?? null;
    const type = c === null ? unreachable : v === null ? none : this.exprs.type(v);
    return this.add({ op: "br", type, label, cond: c, value: v });
  }

  call(target: string, args: readonly ExpressionRef[], results: Type): ExpressionRef {
    return this.add({ op: "call", type: results, target, args: [...args] });
  }

  return(value?: ExpressionRef): ExpressionRef {
    return this.add({ op: "return", type: unreachable, value: value ?? null });
  }

  drop(value: ExpressionRef): ExpressionRef {
    return this.add({ op: "drop", type: none, value });
  }

  select(cond: ExpressionRef, ifTrue: ExpressionRef, ifFalse: ExpressionRef): ExpressionRef {
    return this.add({ op: "select", type: this.exprs.type(ifTrue), cond, ifTrue, ifFalse });
  }

  nop(): ExpressionRef {
    return this.add({ op: "nop", type: none });
  }

  unreachable(): ExpressionRef {
    return this.add({ op: "unreachable", type: unreachable });
  }

  private claim(name: string): void {
    if (this.names.has(name)) throw new LinkError(`duplicate name ${name} in the generated module`);
    this.names.add(name);
  }

  addFunction(name: string, params: Type, results: Type, vars: readonly Type[], body: ExpressionRef): void {
    this.claim(name);
    this.functions.push({ name, params, results, vars: [...vars], body });
  }

  addFunctionImport(name: string, module: string, base: string, params: Type, results: Type): void {
    this.claim(name);
    this.imports.push({ name, module, base, params, results });
  }

  addGlobal(name: string, type: Type, mutable: boolean, init: ExpressionRef): void {
    this.claim(name);
    this.globals.push({ name, type, mutable, init });
  }

  addFunctionExport(internal: string, external: string): void {
    this.exports.push({ internal, external });
  }

  addCustomSection(name: string, bytes: Uint8Array): void {
    this.customSections.push({ name, bytes });
  }

  hasName(name: string): boolean {
    return this.names.has(name);
  }

  /** Nothing to free (binaryen.js modules need it; kept so callers read the same). */
  dispose(): void {}
}
