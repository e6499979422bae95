/**
 * The checked, rewritten program the planner consumes. Plain data; the body and
 * term types are the AST's (ast.ts), restricted by the invariants in README.md
 * ("Program").
 */
import type { Body, ElseClause, Location, Term } from "./ast.js";

/**
 * How the rules of one group define their document:
 * - complete: `p := v` / `p if ...` — one value at `path`;
 * - partial_set: `p contains x` — a set at `path`;
 * - partial_object: `p[k] := v` — an object at `path`, one key term;
 * - function: `f(x) := v`;
 * - ref_value / ref_set: general ref heads (`a.b[c].d := v`, `a[x] contains y`) —
 *   `path` is the ground prefix, `CompiledRule.refTail` the rest.
 */
export type RuleKind = "complete" | "partial_set" | "partial_object" | "function" | "ref_value" | "ref_set";

export interface CompiledRule {
  readonly location: Location;
  readonly file: string;
  readonly default: boolean;
  /** Head ref terms after `path` (empty for complete, set and function rules; `[key]` for partial objects). */
  readonly refTail: readonly Term[];
  /** Set element (partial_set / ref_set), else null. */
  readonly key: Term | null;
  /** Value (true when the source omits it). Null for sets. */
  readonly value: Term | null;
  /** Function parameters: always distinct local vars (patterns are unified in the body). */
  readonly args: readonly Term[];
  /** Checked body: safe order, nested calls lifted, locals renamed. */
  readonly body: Body;
  /** `else` chain, values and bodies normalised like the rule's. */
  readonly else: ElseClause | null;
  /** Generated local name -> name in the source, for messages and dumps. */
  readonly varNames: Readonly<Record<string, string>>;
}

export interface RuleGroup {
  /** Absolute path, e.g. ["data","toolgate","authz","decision"]. */
  readonly path: readonly string[];
  readonly kind: RuleKind;
  /** Number of parameters for functions, else 0. */
  readonly arity: number;
  /** Non-default rules in source order (files in input order). */
  readonly rules: readonly CompiledRule[];
  readonly default: CompiledRule | null;
}

export interface Program {
  /** Groups sorted by path (lexicographic by segments). */
  readonly groups: readonly RuleGroup[];
  /** Packages of the compiled modules, as absolute paths. */
  readonly packages: readonly (readonly string[])[];
  /** Builtin names the program calls (sorted), for the planner's builtin table. */
  readonly builtinsUsed: readonly string[];
}

export interface CompiledQuery {
  readonly body: Body;
  /** User-visible variables, in order of first appearance. */
  readonly vars: readonly string[];
}

export function pathKey(path: readonly string[]): string {
  return path.join("\u0000");
}
