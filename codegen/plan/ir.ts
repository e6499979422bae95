/**
 * The planner's intermediate representation: plain, serialisable data (no classes, no
 * functions) mirroring OPA's `v1/ir/ir.go`. A plan is blocks of statements; a statement
 * that is undefined (a failed comparison, a missing key, ...) exits the innermost block
 * and execution continues after it. Locals hold values; an unset local is "undefined".
 *
 * Deviation from OPA, on purpose: `WithStmt` is not a block that mutates a local and
 * restores it; it builds a *new* local (`target`) holding the replaced document and
 * the planner evaluates the `with`-scoped expression against that local. Nothing has
 * to be undone, so breaks out of nested blocks stay simple.
 */

/** A plan-scoped variable. 0 and 1 are reserved for the input and data documents. */
export type Local = number;
export const INPUT: Local = 0;
export const DATA: Local = 1;
/** First local the planner may allocate. */
export const FIRST_FREE_LOCAL: Local = 2;

/** Where a statement came from; `file` indexes `Static.files`. 0/0 means unknown. */
export interface Location {
  readonly file: number;
  readonly row: number;
  readonly col: number;
}

/** What a statement operates on: a local, a static string, or a boolean constant. */
export type Operand =
  | { readonly kind: "local"; readonly local: Local }
  | { readonly kind: "string"; readonly index: number }
  | { readonly kind: "bool"; readonly value: boolean };

export interface Policy {
  readonly static: Static;
  /** One plan per entrypoint, in entrypoint id order. */
  readonly plans: Plan[];
  /** Rules and functions, planned once and shared between plans. */
  readonly funcs: Func[];
  /** Number of coverage points (`CoverStmt`), 0 when coverage is off. */
  readonly coveragePoints?: number;
}

export interface Static {
  readonly strings: string[];
  readonly builtinFuncs: BuiltinFunc[];
  readonly files: string[];
  /** Ground composite values (`MakeConstStmt`), laid out once in static data. */
  readonly consts?: ConstValue[];
}

/**
 * A ground value the backend lays out once, immutable: generated code never mutates
 * the local that holds it. Numbers are safe integers (others stay run-time values);
 * object keys are unique.
 */
export type ConstValue =
  | { readonly type: "null" }
  | { readonly type: "boolean"; readonly value: boolean }
  | { readonly type: "number"; readonly value: number }
  | { readonly type: "string"; readonly value: string }
  | { readonly type: "array"; readonly items: readonly ConstValue[] }
  | { readonly type: "set"; readonly items: readonly ConstValue[] }
  | { readonly type: "object"; readonly items: readonly (readonly [ConstValue, ConstValue])[] };

/** A builtin the policy calls; `arity` counts the arguments (the result excluded). */
export interface BuiltinFunc {
  readonly name: string;
  readonly arity: number;
}

/** An entrypoint: run the blocks; results are added with `ResultSetAddStmt`. */
export interface Plan {
  readonly name: string;
  readonly blocks: Block[];
  /**
   * An entrypoint whose one `ResultSetAddStmt` adds `wrapper` = `{"result": value}`: a
   * backend that wants the rule's value alone may skip the wrapper's statements.
   */
  readonly ruleResult?: RuleResult;
}

export interface RuleResult {
  readonly value: Local;
  readonly wrapper: Local;
}

/**
 * A rule or a user function. By convention `params[0]` is the input document and
 * `params[1]` the data document; function arguments follow. The blocks run in order;
 * `ReturnLocalStmt` ends the function. The result is undefined when `return` is unset.
 */
export interface Func {
  readonly name: string;
  readonly params: Local[];
  readonly return: Local;
  readonly blocks: Block[];
  /** The rule's path under data, e.g. ["toolgate", "authz", "decision"]. */
  readonly path: string[];
}

export interface Block {
  readonly stmts: Stmt[];
}

interface At {
  readonly loc: Location;
}

/** Return `source` from the enclosing function. */
export interface ReturnLocalStmt extends At { readonly type: "ReturnLocalStmt"; readonly source: Local }
/** Call a planned function or a builtin; undefined when the callee is undefined. */
export interface CallStmt extends At {
  readonly type: "CallStmt";
  readonly func: string;
  readonly args: Operand[];
  readonly result: Local;
}
/** Nested blocks, run one after the other; used with `BreakStmt` to short-circuit. */
export interface BlockStmt extends At { readonly type: "BlockStmt"; readonly blocks: Block[] }
/** Exit `index + 1` enclosing blocks (0: the current block). */
export interface BreakStmt extends At { readonly type: "BreakStmt"; readonly index: number }
/** `target = source[key]`; undefined when the key is missing or source is a scalar. */
export interface DotStmt extends At {
  readonly type: "DotStmt";
  readonly source: Operand;
  readonly key: Operand;
  readonly target: Local;
}
/** `target = count(source)` for arrays, objects, sets and strings. */
export interface LenStmt extends At { readonly type: "LenStmt"; readonly source: Operand; readonly target: Local }
/**
 * Run `block` once per element of a collection; scalars never run it. Unlike OPA's,
 * the statement is undefined when the block never completed (no solution), which
 * makes `not` over an iteration mean "no element matches".
 */
export interface ScanStmt extends At {
  readonly type: "ScanStmt";
  readonly source: Local;
  readonly key: Local;
  readonly value: Local;
  readonly block: Block;
}
/** Defined exactly when `block` is undefined. */
export interface NotStmt extends At { readonly type: "NotStmt"; readonly block: Block }
export interface AssignIntStmt extends At { readonly type: "AssignIntStmt"; readonly value: number; readonly target: Local }
export interface AssignVarStmt extends At { readonly type: "AssignVarStmt"; readonly source: Operand; readonly target: Local }
/** Like AssignVarStmt, but a defined target with a different value is an eval_conflict_error. */
export interface AssignVarOnceStmt extends At {
  readonly type: "AssignVarOnceStmt";
  readonly source: Operand;
  readonly target: Local;
  /** Message of the conflict error, e.g. "complete rules must not produce multiple outputs". */
  readonly message: string;
}
/** Make `target` undefined again. */
export interface ResetLocalStmt extends At { readonly type: "ResetLocalStmt"; readonly target: Local }
export interface MakeNullStmt extends At { readonly type: "MakeNullStmt"; readonly target: Local }
export interface MakeNumberIntStmt extends At { readonly type: "MakeNumberIntStmt"; readonly value: number; readonly target: Local }
/** A number kept as its source text (floats, big integers); `index` is a static string. */
export interface MakeNumberRefStmt extends At { readonly type: "MakeNumberRefStmt"; readonly index: number; readonly target: Local }
/**
 * `target` = the ground value `Static.consts[index]` (static, never mutated), or with
 * `copy` a fresh shallow copy of it that the following statements insert into (an
 * object template whose non-ground members are placeholders).
 */
export interface MakeConstStmt extends At { readonly type: "MakeConstStmt"; readonly index: number; readonly target: Local; readonly copy?: boolean }
export interface MakeArrayStmt extends At { readonly type: "MakeArrayStmt"; readonly capacity: number; readonly target: Local }
export interface MakeObjectStmt extends At { readonly type: "MakeObjectStmt"; readonly target: Local }
export interface MakeSetStmt extends At { readonly type: "MakeSetStmt"; readonly target: Local }
export interface EqualStmt extends At { readonly type: "EqualStmt"; readonly a: Operand; readonly b: Operand }
export interface NotEqualStmt extends At { readonly type: "NotEqualStmt"; readonly a: Operand; readonly b: Operand }
export interface IsArrayStmt extends At { readonly type: "IsArrayStmt"; readonly source: Operand }
export interface IsObjectStmt extends At { readonly type: "IsObjectStmt"; readonly source: Operand }
export interface IsSetStmt extends At { readonly type: "IsSetStmt"; readonly source: Operand }
export interface IsDefinedStmt extends At { readonly type: "IsDefinedStmt"; readonly source: Local }
export interface IsUndefinedStmt extends At { readonly type: "IsUndefinedStmt"; readonly source: Local }
export interface ArrayAppendStmt extends At { readonly type: "ArrayAppendStmt"; readonly array: Local; readonly value: Operand }
export interface ObjectInsertStmt extends At {
  readonly type: "ObjectInsertStmt";
  readonly object: Local;
  readonly key: Operand;
  readonly value: Operand;
}
/** Insert; an existing key with a different value is an eval_conflict_error. */
export interface ObjectInsertOnceStmt extends At {
  readonly type: "ObjectInsertOnceStmt";
  readonly object: Local;
  readonly key: Operand;
  readonly value: Operand;
  readonly message: string;
}
/** `target` = recursive merge of objects `a` and `b` (`a` wins on scalar clashes). */
export interface ObjectMergeStmt extends At { readonly type: "ObjectMergeStmt"; readonly a: Local; readonly b: Local; readonly target: Local }
export interface SetAddStmt extends At { readonly type: "SetAddStmt"; readonly set: Local; readonly value: Operand }
/**
 * `target` = a copy of `local` with `value` upserted at `path` (static string indices;
 * an empty path replaces the whole document). Missing intermediate objects are created.
 */
export interface WithStmt extends At {
  readonly type: "WithStmt";
  readonly local: Local;
  readonly path: number[];
  readonly value: Operand;
  readonly target: Local;
}
export interface NopStmt extends At { readonly type: "NopStmt" }
/** toolgate addition: mark coverage point `point` as hit (a byte in static data). */
export interface CoverStmt extends At { readonly type: "CoverStmt"; readonly point: number }
/** Add `value` to the plan's result set. */
export interface ResultSetAddStmt extends At { readonly type: "ResultSetAddStmt"; readonly value: Local }

export type Stmt =
  | ReturnLocalStmt
  | CallStmt
  | BlockStmt
  | BreakStmt
  | DotStmt
  | LenStmt
  | ScanStmt
  | NotStmt
  | AssignIntStmt
  | AssignVarStmt
  | AssignVarOnceStmt
  | ResetLocalStmt
  | MakeNullStmt
  | MakeNumberIntStmt
  | MakeNumberRefStmt
  | MakeConstStmt
  | MakeArrayStmt
  | MakeObjectStmt
  | MakeSetStmt
  | EqualStmt
  | NotEqualStmt
  | IsArrayStmt
  | IsObjectStmt
  | IsSetStmt
  | IsDefinedStmt
  | IsUndefinedStmt
  | ArrayAppendStmt
  | ObjectInsertStmt
  | ObjectInsertOnceStmt
  | ObjectMergeStmt
  | SetAddStmt
  | WithStmt
  | NopStmt
  | CoverStmt
  | ResultSetAddStmt;

export type StmtType = Stmt["type"];

export const local = (l: Local): Operand => ({ kind: "local", local: l });
export const str = (index: number): Operand => ({ kind: "string", index });
export const bool = (value: boolean): Operand => ({ kind: "bool", value });
