/**
 * State shared by the planner's modules. The operations are mutually recursive
 * (bodies plan terms, terms plan comprehension bodies, refs call rule functions), so
 * they reach each other through `ops`, wired once in `planner.ts`, instead of
 * importing each other in a cycle.
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Body, Location as SourceLocation, RefTerm, Term } from "../rego/ast.js";
import type { BlockWriter, StaticTable } from "./builder.js";
import type { Func, Local, Operand } from "./ir.js";
import type { CoverageMap } from "./coverage.js";
import type { RuleIndex, RuleNode } from "./rule-index.js";

/** A `with` replacement of a rule or function, active while planning under it. */
export type Mock =
  /** Read the mocked rule from the (replaced) data document instead of calling it. */
  | { readonly kind: "data" }
  /** Call another function or builtin instead (`with f as g`). */
  | { readonly kind: "func"; readonly target: Term }
  /** A value for every call (`with f as 1`), planned where the call is. */
  | { readonly kind: "value"; readonly value: Term }
  /**
   * A value reading locals of the `with`'s body (`with f as y`), computed there:
   * functions planned under it take it as an extra parameter (`Ctx.captured`).
   */
  | { readonly kind: "captured"; readonly id: number };

export interface PlannerOps {
  body(c: Ctx, body: Body, k: () => void): void;
  term(c: Ctx, t: Term, k: (o: Operand) => void): void;
  unify(c: Ctx, a: Term, b: Term, k: () => void): void;
  unifyOperand(c: Ctx, t: Term, o: Operand, k: () => void): void;
  ref(c: Ctx, r: RefTerm, k: (o: Operand) => void): void;
  /** The name of the function computing `node` (planned on first use). */
  ruleFunc(c: Ctx, node: RuleNode): string;
}

/** Compilation-wide state. */
export interface Shared {
  readonly statics: StaticTable;
  readonly index: RuleIndex;
  readonly funcs: Func[];
  /** node path + mock signature -> function name */
  readonly funcNames: Map<string, string>;
  readonly errors: Diagnostic[];
  readonly ops: PlannerOps;
  /** Builtins known to the backend: name -> arity. */
  readonly builtins: ReadonlyMap<string, number>;
  /** Rule functions named but not planned yet (planned one after another, not nested). */
  readonly pending: { readonly name: string; readonly node: RuleNode; readonly mocks: ReadonlyMap<string, Mock>; readonly unindexed?: boolean }[];
  /** Coverage points when coverage is on. */
  readonly coverage: CoverageMap | null;
  /** Index rules that test an input path against constants (rule-dispatch.ts). */
  readonly ruleIndex: boolean;
  /** The rule being planned last: where an internal failure (stack exhaustion) is reported. */
  at: SourceLocation | null;
  /** Captured mock values so far (their ids). */
  captures: number;
}

/** Per function (or plan) state; `vars`, `input`, `data`, `mocks` change while planning. */
export interface Ctx {
  readonly s: Shared;
  readonly w: BlockWriter;
  readonly vars: Map<string, Local>;
  input: Local;
  data: Local;
  mocks: ReadonlyMap<string, Mock>;
  /** Captured mock value id -> the local holding it in this function. */
  captured: ReadonlyMap<number, Local>;
  /** Block depth, for BreakStmt indexes. */
  depth: number;
}

/** Key of a mock map: the mocked path joined with "/" ("count" for a builtin). */
export function mockSignature(mocks: ReadonlyMap<string, Mock>): string {
  if (mocks.size === 0) return "";
  return [...mocks.keys()].sort().join(",");
}

/** Ids of the captured mock values among `mocks`, sorted: the extra parameters of functions planned under them. */
export function capturedIds(mocks: ReadonlyMap<string, Mock>): number[] {
  return [...mocks.values()].flatMap((m) => (m.kind === "captured" ? [m.id] : [])).sort((a, b) => a - b);
}

/** The captured values a call passes to a function planned under `mocks`. */
export function capturedArgs(c: Ctx, mocks: ReadonlyMap<string, Mock>): Operand[] {
  return capturedIds(mocks).map((id) => {
    const l = c.captured.get(id);
    if (l === undefined) throw new Error(`captured mock value ${id} is not in scope`);
    return { kind: "local", local: l };
  });
}
