/**
 * Rule-value memoisation: a function of no arguments (a rule, `f()`) computes its
 * value once per evaluation, as OPA's Wasm does for functions of arity 0; a rule
 * referenced inside a loop no longer runs its body on every iteration.
 *
 * Every memoised function owns one slot in static data (24 bytes):
 *
 *   0  i64  generation the slot was written in
 *   8  i32  the value (0: undefined, a result that is remembered too)
 *  12  i32  the input document it was computed from
 *  16  i32  the data document it was computed from
 *
 * A slot is valid while its generation is the module's current one; the
 * generation is bumped at the start of every evaluation (`toolgate.eval`, which
 * the SDK's `eval`, `opa_eval` and the decision export all go through), so no
 * value outlives the evaluation that computed it. It is an i64, so it never wraps.
 *
 * `with`: a rule or function replaced by `with` has the functions under it planned
 * again under other names (other slots); `with input...` / `with data...` pass
 * other documents. The slot therefore also records the input and data pointers and
 * answers only for the same ones: within one evaluation nothing is freed (a bump
 * allocator, reset only between evaluations) and a `with` builds a new document, so
 * equal pointers mean the same documents. A mocked call never reads an unmocked
 * value or the other way round; it overwrites the slot at worst (recomputed later).
 *
 * Fuel: the function's entry is still spent on every call (the caller's step), its
 * body's steps only when the body runs.
 */
import * as binaryen from "../link/builder-api.js";
import type { Func } from "../../plan/ir.js";
import { INPUT, DATA } from "../../plan/ir.js";
import type { StaticData } from "./static-data.js";

type Ref = binaryen.ExpressionRef;

const GENERATION = "tg_memo_generation";
const SLOT_BYTES = 24;
const i32 = binaryen.i32;
const i64 = binaryen.i64;

/** Whether a function is memoised: it takes only the input and data documents. */
export function isMemoisable(f: Func): boolean {
  return f.params.length === 2 && f.params[0] === INPUT && f.params[1] === DATA;
}

export class Memo {
  private readonly slots = new Map<string, number>();
  private readonly base: number;

  constructor(
    private readonly m: binaryen.Module,
    data: StaticData,
    funcs: readonly Func[],
  ) {
    const memoised = funcs.filter(isMemoisable);
    // 8-aligned for the i64 generation
    const pad = (8 - (data.zeros(0) % 8)) % 8;
    this.base = data.zeros(pad + memoised.length * SLOT_BYTES) + pad;
    memoised.forEach((f, i) => this.slots.set(f.name, this.base + i * SLOT_BYTES));
    m.addGlobal(GENERATION, i64, true, m.i64.const(0n));
  }

  /** The slot address of a function, or null when it is not memoised. */
  slot(name: string): number | null {
    return this.slots.get(name) ?? null;
  }

  /** A new generation: every slot is stale. At the start of every evaluation. */
  reset(): Ref {
    const m = this.m;
    return m.global.set(GENERATION, m.i64.add(m.global.get(GENERATION, i64), m.i64.const(1n)));
  }

  /** Function prologue: return the remembered value when the slot is current for these documents. */
  lookup(slot: number): Ref {
    const m = this.m;
    const at = (): Ref => m.i32.const(slot);
    const current = m.i32.and(
      m.i64.eq(m.i64.load(0, 8, at()), m.global.get(GENERATION, i64)),
      m.i32.and(
        m.i32.eq(m.i32.load(12, 4, at()), m.local.get(INPUT, i32)),
        m.i32.eq(m.i32.load(16, 4, at()), m.local.get(DATA, i32)),
      ),
    );
    return m.if(current, m.return(m.i32.load(8, 4, at())));
  }

  /** Before a memoised function returns `value`: remember it for this generation and these documents. */
  store(slot: number, value: Ref): Ref {
    const m = this.m;
    const at = (): Ref => m.i32.const(slot);
    return m.block(null, [
      m.i64.store(0, 8, at(), m.global.get(GENERATION, i64)),
      m.i32.store(8, 4, at(), value),
      m.i32.store(12, 4, at(), m.local.get(INPUT, i32)),
      m.i32.store(16, 4, at(), m.local.get(DATA, i32)),
    ]);
  }
}
