/**
 * Expression trees of the module builder: plain nodes in one array per module,
 * referred to by index (an `ExpressionRef`, as in binaryen.js), each with the
 * type the Wasm validator will see.
 */
import type { Type } from "./types.js";
import { auto, none, unreachable } from "./types.js";

export type ExpressionRef = number;

export type Expr =
  | { readonly op: "const"; readonly type: Type; readonly value: number | bigint }
  | { readonly op: "local.get"; readonly type: Type; readonly index: number }
  | { readonly op: "local.set"; readonly type: Type; readonly index: number; readonly value: ExpressionRef; readonly tee: boolean }
  | { readonly op: "global.get"; readonly type: Type; readonly name: string }
  | { readonly op: "global.set"; readonly type: Type; readonly name: string; readonly value: ExpressionRef }
  | { readonly op: "call"; readonly type: Type; readonly target: string; readonly args: readonly ExpressionRef[] }
  | { readonly op: "block"; readonly type: Type; readonly label: string | null; readonly children: readonly ExpressionRef[] }
  | { readonly op: "loop"; readonly type: Type; readonly label: string | null; readonly body: ExpressionRef }
  | { readonly op: "if"; readonly type: Type; readonly cond: ExpressionRef; readonly then: ExpressionRef; readonly else: ExpressionRef | null }
  | { readonly op: "br"; readonly type: Type; readonly label: string; readonly cond: ExpressionRef | null; readonly value: ExpressionRef | null }
  | { readonly op: "return"; readonly type: Type; readonly value: ExpressionRef | null }
  | { readonly op: "drop"; readonly type: Type; readonly value: ExpressionRef }
  | { readonly op: "select"; readonly type: Type; readonly cond: ExpressionRef; readonly ifTrue: ExpressionRef; readonly ifFalse: ExpressionRef }
  /** A numeric instruction: `code` is its opcode bytes, `operands` its inputs in order. */
  | { readonly op: "numeric"; readonly type: Type; readonly code: readonly number[]; readonly operands: readonly ExpressionRef[] }
  | { readonly op: "load"; readonly type: Type; readonly code: number; readonly align: number; readonly offset: number; readonly ptr: ExpressionRef }
  | { readonly op: "store"; readonly type: Type; readonly code: number; readonly align: number; readonly offset: number; readonly ptr: ExpressionRef; readonly value: ExpressionRef }
  | { readonly op: "memory.size"; readonly type: Type }
  | { readonly op: "memory.grow"; readonly type: Type; readonly delta: ExpressionRef }
  | { readonly op: "nop"; readonly type: Type }
  | { readonly op: "unreachable"; readonly type: Type };

/** The node arena of one module. */
export class ExprArena {
  private readonly nodes: Expr[] = [];

  add(e: Expr): ExpressionRef {
    this.nodes.push(e);
    return this.nodes.length - 1;
  }

  get(ref: ExpressionRef): Expr {
    const e = this.nodes[ref];
    if (e === undefined) throw new Error(`no expression ${ref}`);
    return e;
  }

  /** The target of every `call` node built so far (used or not). */
  callTargets(): Set<string> {
    const out = new Set<string>();
    for (const e of this.nodes) if (e.op === "call") out.add(e.target);
    return out;
  }

  /** Every i32 constant and memory access offset built so far (unsigned): the addresses the code may use. */
  addressConstants(): number[] {
    const out: number[] = [];
    for (const e of this.nodes) {
      if (e.op === "const" && typeof e.value === "number") out.push(e.value >>> 0);
      else if (e.op === "load" || e.op === "store") out.push(e.offset >>> 0);
    }
    return out;
  }

  type(ref: ExpressionRef): Type {
    return this.get(ref).type;
  }

  /** A block's type: the given one, or with `auto` its last child's. */
  blockType(children: readonly ExpressionRef[], type: Type | undefined): Type {
    if (type === undefined) return none;
    if (type !== auto) return type;
    const last = children[children.length - 1];
    return last === undefined ? none : this.type(last);
  }

  /** An if's type: an arm's type when both exist (the reachable one), otherwise none. */
  ifType(then: ExpressionRef, otherwise: ExpressionRef | null): Type {
    if (otherwise === null) return none;
    const a = this.type(then);
    return a === unreachable ? this.type(otherwise) : a;
  }
}
