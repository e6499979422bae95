/**
 * One builder function -> its code-section body. A few rewrites keep the output
 * close to what an optimiser would leave for the emitter's code, without one:
 * blocks no branch targets are spliced into their parent, code after a return or
 * unconditional branch is dropped, and `local.set x; local.get x` becomes
 * `local.tee x`.
 */
import { ByteWriter, EMPTY_BLOCK_TYPE, LinkError } from "./bytes.js";
import type { ExprArena, ExpressionRef } from "./expr.js";
import type { FunctionDef } from "./module-builder.js";
import { expandType, f64, i32, i64, none, unreachable, valtype } from "./types.js";
import type { Type } from "./types.js";

export interface Symbols {
  func(name: string): number;
  global(name: string): number;
}

const OP = {
  unreachable: 0x00, nop: 0x01, block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b,
  br: 0x0c, br_if: 0x0d, return: 0x0f, call: 0x10, drop: 0x1a, select: 0x1b,
  local_get: 0x20, local_set: 0x21, local_tee: 0x22, global_get: 0x23, global_set: 0x24,
  i32_const: 0x41, i64_const: 0x42, f32_const: 0x43, f64_const: 0x44, memory_size: 0x3f, memory_grow: 0x40,
} as const;

export function encodeFunction(fn: FunctionDef, exprs: ExprArena, symbols: Symbols): Uint8Array {
  const w = new ByteWriter();
  const groups: [number, number][] = [];
  for (const t of fn.vars) {
    const code = valtype(t);
    const last = groups[groups.length - 1];
    if (last !== undefined && last[1] === code) last[0]++;
    else groups.push([1, code]);
  }
  w.u32(groups.length);
  for (const [n, code] of groups) w.u32(n).byte(code);
  new BodyEncoder(w, exprs, symbols, branchTargets(fn.body, exprs)).top(fn.body);
  w.byte(OP.end);
  return w.finish();
}

/** Labels some `br` names. */
function branchTargets(root: ExpressionRef, exprs: ExprArena): Set<string> {
  const out = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const e = exprs.get(stack.pop()!);
    switch (e.op) {
      case "br":
        out.add(e.label);
        if (e.cond !== null) stack.push(e.cond);
        if (e.value !== null) stack.push(e.value);
        break;
      case "block": stack.push(...e.children); break;
      case "loop": stack.push(e.body); break;
      case "if": stack.push(e.cond, e.then, ...(e.else === null ? [] : [e.else])); break;
      case "call": stack.push(...e.args); break;
      case "numeric": stack.push(...e.operands); break;
      case "local.set": case "global.set": case "drop": stack.push(e.value); break;
      case "return": if (e.value !== null) stack.push(e.value); break;
      case "select": stack.push(e.ifTrue, e.ifFalse, e.cond); break;
      case "load": stack.push(e.ptr); break;
      case "store": stack.push(e.ptr, e.value); break;
      case "memory.grow": stack.push(e.delta); break;
      default: break;
    }
  }
  return out;
}

class BodyEncoder {
  /** Enclosing labels, innermost last (null: an if or an unnamed construct). */
  private readonly labels: (string | null)[] = [];
  /** The last `local.set` written: where its opcode is, where it ends, which local. */
  private lastSet: { at: number; end: number; index: number } | null = null;

  constructor(
    private readonly w: ByteWriter,
    private readonly exprs: ExprArena,
    private readonly symbols: Symbols,
    private readonly targets: Set<string>,
  ) {}

  /** The function body: an implicit block (after a final return the stack is polymorphic, so nothing more is needed). */
  top(body: ExpressionRef): void {
    this.seq(body);
  }

  /** A construct's contents: spliced children of untargeted blocks, stopping after the first that never falls through. Returns whether the end is unreachable. */
  private seq(ref: ExpressionRef): boolean {
    const e = this.exprs.get(ref);
    if (e.op === "block" && (e.label === null || !this.targets.has(e.label))) {
      for (const c of e.children) if (this.seq(c)) return true;
      return e.type === unreachable;
    }
    return this.expr(ref);
  }

  private blockType(t: Type): void {
    if (t === none || t === unreachable) this.w.byte(EMPTY_BLOCK_TYPE);
    else if (expandType(t).length === 1) this.w.byte(valtype(t));
    else throw new LinkError("multi-value blocks are not supported");
  }

  /** Closes a construct of type `t`; an unreachable one gets an `unreachable` after it, as its empty block type falls through. */
  private close(t: Type): boolean {
    this.w.byte(OP.end);
    this.lastSet = null;
    if (t !== unreachable) return false;
    this.w.byte(OP.unreachable);
    return true;
  }

  private depth(label: string): number {
    for (let i = this.labels.length - 1; i >= 0; i--) if (this.labels[i] === label) return this.labels.length - 1 - i;
    throw new LinkError(`branch to unknown label ${label}`);
  }

  /** Writes one expression; returns true when control never falls through it. */
  private expr(ref: ExpressionRef): boolean {
    const e = this.exprs.get(ref);
    const w = this.w;
    switch (e.op) {
      case "block": {
        if (e.label === null || !this.targets.has(e.label)) return this.seq(ref);
        w.byte(OP.block);
        this.blockType(e.type);
        this.labels.push(e.label);
        for (const c of e.children) if (this.seq(c)) break;
        this.labels.pop();
        return this.close(e.type);
      }
      case "loop": {
        w.byte(OP.loop);
        this.blockType(e.type);
        this.labels.push(e.label);
        this.seq(e.body);
        this.labels.pop();
        return this.close(e.type);
      }
      case "if": {
        this.expr(e.cond);
        w.byte(OP.if);
        this.blockType(e.type);
        this.labels.push(null);
        this.lastSet = null;
        this.seq(e.then);
        if (e.else !== null) {
          w.byte(OP.else);
          this.lastSet = null;
          this.seq(e.else);
        }
        this.labels.pop();
        return this.close(e.type);
      }
      case "br":
        if (e.value !== null) this.expr(e.value);
        if (e.cond !== null) this.expr(e.cond);
        w.byte(e.cond === null ? OP.br : OP.br_if).u32(this.depth(e.label));
        return e.cond === null;
      case "return":
        if (e.value !== null) this.expr(e.value);
        w.byte(OP.return);
        return true;
      case "unreachable":
        w.byte(OP.unreachable);
        return true;
      case "nop":
        return false;
      case "const":
        this.constant(e.type, e.value);
        return false;
      case "local.get": {
        const s = this.lastSet;
        if (s !== null && s.end === w.length && s.index === e.index) {
          w.patch(s.at, OP.local_tee);
          this.lastSet = null;
        } else {
          w.byte(OP.local_get).u32(e.index);
        }
        return false;
      }
      case "local.set": {
        this.expr(e.value);
        const at = w.length;
        w.byte(e.tee ? OP.local_tee : OP.local_set).u32(e.index);
        this.lastSet = e.tee ? null : { at, end: w.length, index: e.index };
        return false;
      }
      case "global.get":
        w.byte(OP.global_get).u32(this.symbols.global(e.name));
        return false;
      case "global.set":
        this.expr(e.value);
        w.byte(OP.global_set).u32(this.symbols.global(e.name));
        return false;
      case "call":
        for (const a of e.args) this.expr(a);
        w.byte(OP.call).u32(this.symbols.func(e.target));
        return false;
      case "drop":
        this.expr(e.value);
        w.byte(OP.drop);
        return false;
      case "select":
        this.expr(e.ifTrue);
        this.expr(e.ifFalse);
        this.expr(e.cond);
        w.byte(OP.select);
        return false;
      case "numeric":
        for (const o of e.operands) this.expr(o);
        for (const b of e.code) w.byte(b);
        return false;
      case "load":
        this.expr(e.ptr);
        w.byte(e.code).u32(Math.log2(e.align)).u32(e.offset);
        return false;
      case "store":
        this.expr(e.ptr);
        this.expr(e.value);
        w.byte(e.code).u32(Math.log2(e.align)).u32(e.offset);
        return false;
      case "memory.size":
        w.byte(OP.memory_size).byte(0);
        return false;
      case "memory.grow":
        this.expr(e.delta);
        w.byte(OP.memory_grow).byte(0);
        return false;
    }
  }

  private constant(type: Type, value: number | bigint): void {
    const w = this.w;
    if (type === i32) w.byte(OP.i32_const).s32(Number(value));
    else if (type === i64) w.byte(OP.i64_const).s64(BigInt(value));
    else if (type === f64) w.byte(OP.f64_const).f64(Number(value));
    else throw new LinkError(`unsupported constant type ${type}`);
  }
}
