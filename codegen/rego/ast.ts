/**
 * The Rego AST: plain, serialisable, typed data. Every node carries a `type` tag
 * and a 1-based `location`. The parser produces it; the compiler stages rewrite it
 * into the same shapes (see README.md for what changes after compilation).
 */
import type { SourceLocation } from "../diagnostics.js";

export type Location = SourceLocation;

// ---------------------------------------------------------------- terms

export interface NullTerm { readonly type: "null"; readonly location: Location }
export interface BooleanTerm { readonly type: "boolean"; readonly value: boolean; readonly location: Location }
/** `text` is the source spelling (e.g. `1e3`, `123456789012345678901234567890`), lossless. */
export interface NumberTerm { readonly type: "number"; readonly text: string; readonly location: Location }
/** `value` is the decoded string; `raw` marks a backtick string in the source. */
export interface StringTerm { readonly type: "string"; readonly value: string; readonly raw?: boolean; readonly location: Location }
/** A variable. `_` is a wildcard in parsed input; the compiler renames every wildcard to a fresh local. */
export interface VarTerm { readonly type: "var"; readonly name: string; readonly location: Location }
/**
 * A reference: `head` followed by `path` operands. `a.b[c]` is head var `a`, path
 * [string "b", var c]. The head may also be a composite or call term (`f(x)[0]`, `[1,2][i]`).
 */
export interface RefTerm { readonly type: "ref"; readonly head: Term; readonly path: readonly Term[]; readonly location: Location }
export interface ArrayTerm { readonly type: "array"; readonly items: readonly Term[]; readonly location: Location }
/** Object items keep source order; duplicate keys are resolved at evaluation. */
export interface ObjectTerm { readonly type: "object"; readonly items: readonly (readonly [Term, Term])[]; readonly location: Location }
export interface SetTerm { readonly type: "set"; readonly items: readonly Term[]; readonly location: Location }
/**
 * A call used as a term (nested call). `operator` is the dotted name as written,
 * e.g. ["object","get"], ["plus"] for `+`, ["data","lib","f"]. After compilation,
 * nested calls are lifted into CallExprs (see README).
 */
export interface CallTerm {
  readonly type: "call";
  readonly operator: readonly string[];
  readonly args: readonly Term[];
  readonly location: Location;
  /** A template string the parser rewrote into this call (kept for the formatter; see desugar.ts). */
  readonly template?: TemplateSource;
}

/** `$"a{x}b"` as written: literal text and interpolated terms in order; `raw` for `` $`...` ``. */
export interface TemplateSource {
  readonly raw: boolean;
  readonly parts: readonly (string | Term)[];
}
export interface ArrayComprehension {
  readonly type: "arraycomprehension";
  readonly term: Term;
  readonly body: Body;
  readonly location: Location;
  /** Compiler output only: variables of the enclosing body the comprehension reads (its closure). */
  readonly captures?: readonly string[];
}
export interface SetComprehension {
  readonly type: "setcomprehension";
  readonly term: Term;
  readonly body: Body;
  readonly location: Location;
  /** Compiler output only: variables of the enclosing body the comprehension reads (its closure). */
  readonly captures?: readonly string[];
}
export interface ObjectComprehension {
  readonly type: "objectcomprehension";
  readonly key: Term;
  readonly value: Term;
  readonly body: Body;
  readonly location: Location;
  /** Compiler output only: variables of the enclosing body the comprehension reads (its closure). */
  readonly captures?: readonly string[];
}

export type Scalar = NullTerm | BooleanTerm | NumberTerm | StringTerm;
export type Comprehension = ArrayComprehension | SetComprehension | ObjectComprehension;
export type Term = Scalar | VarTerm | RefTerm | ArrayTerm | ObjectTerm | SetTerm | CallTerm | Comprehension;

// ---------------------------------------------------------------- expressions

/** `with <target> as <value>`; target is a ref (`input.x`, `data.a.b`, a function or builtin name). */
export interface WithModifier { readonly type: "with"; readonly target: RefTerm | VarTerm; readonly value: Term; readonly location: Location }

interface ExprBase {
  readonly location: Location;
  /** `not <expr>`. Always false after compilation (negation becomes a NotExpr). */
  readonly negated: boolean;
  readonly with: readonly WithModifier[];
  /** Compiler output only: variables this expression binds first (safe order). */
  readonly binds?: readonly string[];
  /** The newer syntax the parser rewrote into this expression (kept for the formatter; see desugar.ts). */
  readonly source?: ExprSource;
  /**
   * `not e` read under `import future.keywords.not`: the whole expression, its nested
   * calls included, stays inside the negation. Without the import nested calls are
   * lifted before the `not`, as OPA's compiler does.
   */
  readonly composite?: true;
}

/**
 * `not { body }` (`import future.keywords.not`) and `a and b` / `a or b`
 * (`import future.keywords.and` / `.or`) as written; `paren` marks `(a or b)` and
 * `not (a or b)` groups.
 */
export type ExprSource =
  | { readonly kind: "notblock"; readonly body: Body; readonly paren?: true }
  | { readonly kind: "logical"; readonly op: "and" | "or"; readonly operands: readonly LogicalOperand[]; readonly paren?: true };
/** One operand of `and` / `or`: a braced body or a single expression. */
export type LogicalOperand = { readonly block: Body; readonly location: Location } | { readonly expr: Expr };

/** A bare term used as an expression: true when the term is defined and not false. */
export interface TermExpr extends ExprBase { readonly type: "termexpr"; readonly term: Term }
/**
 * A call at expression level, including the infix ones: `x = y` is operator ["eq"],
 * `x := y` is ["assign"], `x == y` is ["equal"]. A call may carry one extra
 * trailing argument, its output (`count(xs, n)`).
 */
export interface CallExpr extends ExprBase { readonly type: "callexpr"; readonly operator: readonly string[]; readonly args: readonly Term[] }
/** `some x, y` — declares local variables. */
export interface SomeDecl extends ExprBase { readonly type: "some"; readonly vars: readonly VarTerm[] }
/** `some x in xs` (key null) or `some k, v in xs`. */
export interface SomeIn extends ExprBase { readonly type: "somein"; readonly key: Term | null; readonly value: Term; readonly domain: Term }
/** `every x in xs { body }` or `every k, v in xs { body }`. */
export interface Every extends ExprBase {
  readonly type: "every";
  readonly key: Term | null;
  readonly value: Term;
  readonly domain: Term;
  readonly body: Body;
  /** Compiler output only: outer variables the body reads. */
  readonly captures?: readonly string[];
}

/**
 * Compiler output only: `not` over a conjunction. `not f(g(x))` becomes
 * not { g(x, t); f(t) } so that lifted sub-expressions stay inside the negation.
 */
export interface NotExpr extends ExprBase {
  readonly type: "not";
  readonly body: Body;
  /** Outer variables the body reads. */
  readonly captures?: readonly string[];
  /**
   * A plain `not e` (not a `not { }` block, not under `future.keywords.not`): the
   * refs among `e`'s operands are evaluated before the negation (negation-dynamics.ts).
   */
  readonly plain?: true;
}

export type Expr = TermExpr | CallExpr | SomeDecl | SomeIn | Every | NotExpr;
export type Body = readonly Expr[];

// ---------------------------------------------------------------- rules

/**
 * Rule head reference: `p` is [var p]; `a.b[c].d` is [var a, string b, var c, string d].
 * The first element is always a var.
 */
export type HeadRef = readonly Term[];

/** `p := v`, `p if`, `p[k] := v`, `a.b[c].d := v`. `value` is `true` when omitted. */
export interface ValueHead { readonly kind: "value"; readonly ref: HeadRef; readonly value: Term; readonly assign: boolean; readonly location: Location }
/** `p contains x`, `a.b[c] contains x`. */
export interface ContainsHead { readonly kind: "contains"; readonly ref: HeadRef; readonly key: Term; readonly location: Location }
/** `f(x, y) := v` / `f(x) if`. `value` is `true` when omitted. */
export interface FunctionHead {
  readonly kind: "function";
  readonly ref: HeadRef;
  readonly args: readonly Term[];
  readonly value: Term;
  readonly assign: boolean;
  readonly location: Location;
}
export type RuleHead = ValueHead | ContainsHead | FunctionHead;

/** One `else [= v] [if] { body }` link; functions share the head's args. */
export interface ElseClause {
  readonly type: "else";
  readonly value: Term;
  readonly body: Body;
  readonly else: ElseClause | null;
  readonly location: Location;
}

export interface Rule {
  readonly type: "rule";
  readonly default: boolean;
  readonly head: RuleHead;
  /** Empty source bodies (`p := 1`) become `[true]`. */
  readonly body: Body;
  readonly else: ElseClause | null;
  readonly location: Location;
}

// ---------------------------------------------------------------- module

export interface Package {
  readonly type: "package";
  /** Absolute path as strings, starting with "data": `package a.b` is ["data","a","b"]. */
  readonly path: readonly string[];
  readonly location: Location;
}

export interface Import {
  readonly type: "import";
  /** Root ("data", "input", "future", "rego") followed by the dotted/bracketed path. */
  readonly path: readonly string[];
  readonly alias: string | null;
  readonly location: Location;
}

export interface Comment { readonly text: string; readonly location: Location }

export interface Module {
  readonly type: "module";
  readonly file: string;
  readonly package: Package;
  readonly imports: readonly Import[];
  readonly rules: readonly Rule[];
  readonly comments: readonly Comment[];
  /** `# METADATA` blocks, in source order (see annotations.ts). */
  readonly annotations?: readonly Annotation[];
}

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [k: string]: JsonValue };
export type AnnotationScope = "rule" | "document" | "package" | "subpackages";

/** One `# METADATA` block: its scope, what it is attached to, and its value as `rego.metadata.*` return it. */
export interface Annotation {
  readonly type: "annotation";
  readonly scope: AnnotationScope;
  readonly value: { readonly [k: string]: JsonValue };
  /** The package, or the rule (index into `rules`), right after the block. */
  readonly target: { readonly kind: "package" } | { readonly kind: "import" } | { readonly kind: "rule"; readonly rule: number };
  readonly location: Location;
}
