/**
 * Decision explanations (`toolgate eval --explain`): the value of every rule of a
 * policy for one input, with the rules the query depends on marked. All rule
 * groups are compiled as extra entrypoints of ONE module and evaluated through
 * the opa-wasm SDK, so the values are exactly what the shipped module computes.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import type { Diagnostic, SourceLocation } from "../diagnostics.js";
import type { CoveragePoint } from "../plan/coverage.js";
import type { RuleGroup, RuleKind } from "../rego/index.js";
import { compileModules, parseQuery } from "../rego/index.js";
import { MODULE_EXPORTS } from "../../src/policy/abi.js";
import { hostBuiltins } from "../../src/policy/host-builtins/index.js";
import { dataReads, groupEdges, groupsRead, reachable } from "./explain-deps.js";
import { compilePolicy } from "./index.js";
import type { SourceFile } from "./types.js";

export interface ExplainOptions extends ExplainSubject {
  readonly modules: readonly SourceFile[];
  /** A Rego query (`data.toolgate.authz.decision`) or an entrypoint path (`toolgate/authz/decision`). */
  readonly query: string;
}

export type RuleOutcome =
  | { readonly status: "value"; readonly value: unknown }
  | { readonly status: "undefined" }
  | { readonly status: "error"; readonly message: string }
  | { readonly status: "not_evaluated"; readonly why: string };

/** query: read by the query itself; dependency: read transitively by those; other: neither. */
export type RuleRole = "query" | "dependency" | "other";

export interface RuleExplanation {
  /** Absolute path, `data.toolgate.authz.decision`. */
  readonly path: string;
  readonly kind: RuleKind;
  /** Every definition (default included), in source order. */
  readonly locations: readonly SourceLocation[];
  readonly role: RuleRole;
  readonly outcome: RuleOutcome;
  /**
   * For rules with an `else` chain or a default: the branch that produced the value
   * (`else_index` 0 is the rule's own body, k the k-th `else`), or the default.
   */
  readonly branch?: DecidingBranch;
}

export interface DecidingBranch {
  readonly kind: "body" | "else" | "default";
  readonly else_index: number;
  readonly location: SourceLocation;
}

export interface Explanation {
  /** Rules the query depends on first (query, then dependencies, in source order), then the others in source order. */
  readonly rules: readonly RuleExplanation[];
  /** Parse or compile errors; `rules` is empty when there are any. */
  readonly errors: readonly Diagnostic[];
}

/** `toolgate/authz/decision` -> `data.toolgate.authz.decision`; a query stays as it is. */
export function queryText(query: string): string {
  return /^[A-Za-z_][\w]*(\/[A-Za-z_][\w]*)+$/.test(query) ? `data.${query.replaceAll("/", ".")}` : query;
}

const ROLE_ORDER: Record<RuleRole, number> = { query: 0, dependency: 1, other: 2 };

export interface ExplainSubject {
  /** Base data document (an object); `{}` when absent. */
  readonly data?: unknown;
  readonly input?: unknown;
}

/** A policy compiled for explanations: evaluate every rule for one input and data, as often as needed. */
export interface Explainer {
  explain(subject: ExplainSubject): Explanation;
}

/** Compiles once (parse, dependency walk, one module with every rule group as an entrypoint). */
export async function compileExplainer(opts: { readonly modules: readonly SourceFile[]; readonly query: string }): Promise<Explainer | { readonly errors: Diagnostic[] }> {
  const q = parseQuery(queryText(opts.query), "query");
  if (q.body === null) return { errors: q.errors };
  const front = compileModules(opts.modules);
  if (front.program === null) return { errors: front.errors };
  const groups = front.program.groups;

  const roots = new Set(dataReads(q.body).flatMap((p) => groupsRead(groups, p)));
  const deps = reachable(roots, groupEdges(groups));
  const role = (i: number): RuleRole => (roots.has(i) ? "query" : deps.has(i) ? "dependency" : "other");

  const evaluate = await compileGroups(opts.modules, groups);
  if (!(evaluate instanceof Function)) return evaluate;

  const fileOrder = new Map(opts.modules.map((m, i) => [m.file, i]));
  const byPosition = (a: SourceLocation, b: SourceLocation): number =>
    (fileOrder.get(a.file) ?? 0) - (fileOrder.get(b.file) ?? 0) || a.row - b.row || a.col - b.col;
  const rules = groups.map((g, i) => ({
    path: g.path.join("."),
    kind: g.kind,
    locations: [...(g.default === null ? [] : [g.default]), ...g.rules].map((r) => r.location).sort(byPosition),
    role: role(i),
  }));
  const order = rules
    .map((_, i) => i)
    .sort((a, b) => ROLE_ORDER[rules[a]!.role] - ROLE_ORDER[rules[b]!.role] || byPosition(rules[a]!.locations[0]!, rules[b]!.locations[0]!));
  return {
    explain(subject) {
      const outcomes = evaluate(subject);
      return {
        rules: order.map((i) => {
          const { outcome, branch } = outcomes[i]!;
          return branch === null ? { ...rules[i]!, outcome } : { ...rules[i]!, outcome, branch };
        }),
        errors: [],
      };
    },
  };
}

/** Compiles and explains once; compile errors come back in `errors` with no rules. */
export async function explainPolicy(opts: ExplainOptions): Promise<Explanation> {
  const ex = await compileExplainer(opts);
  if ("errors" in ex) return { rules: [], errors: ex.errors };
  return ex.explain(opts);
}

type Evaluate = (subject: ExplainSubject) => { outcome: RuleOutcome; branch: DecidingBranch | null }[];

/** The heads whose coverage point tells which branch of a group decided: each definition's chain, then the default. */
function branchHeads(g: RuleGroup): { kind: DecidingBranch["kind"]; else_index: number; location: SourceLocation }[] {
  const heads: { kind: DecidingBranch["kind"]; else_index: number; location: SourceLocation }[] = [];
  const chained = g.rules.some((r) => r.else !== null);
  if (!chained && g.default === null) return heads;
  for (const r of g.rules) {
    heads.push({ kind: "body", else_index: 0, location: r.location });
    let k = 0;
    for (let e = r.else; e !== null; e = e.else) heads.push({ kind: "else", else_index: ++k, location: { file: r.file, row: e.location.row, col: e.location.col } });
  }
  if (g.default !== null) heads.push({ kind: "default", else_index: 0, location: g.default.location });
  return heads;
}

/** One module with each non-function group as an entrypoint; the function returns one outcome per group. */
async function compileGroups(modules: readonly SourceFile[], groups: readonly RuleGroup[]): Promise<Evaluate | { errors: Diagnostic[] }> {
  const entry = (g: RuleGroup): string => g.path.slice(1).join("/");
  const evaluable = groups.filter((g) => g.kind !== "function");
  // Unoptimised: the module is used for a few evaluations, and binaryen would dominate the run time.
  // Coverage head points say which else branch (or default) produced a rule's value.
  const out = compilePolicy({ modules, entrypoints: evaluable.map(entry), optimize: false, coverage: true });
  if (out.wasm === null) return { errors: out.errors };
  const policy = await loadPolicy(out.wasm, undefined, hostBuiltins);
  const points: readonly CoveragePoint[] = out.coverage?.points ?? [];
  const ptr = ((policy.wasmInstance as WebAssembly.Instance).exports as Record<string, unknown>)[MODULE_EXPORTS.coveragePtr];
  const headPoint = new Map<string, number>();
  points.forEach((p, i) => {
    const key = `${p.file}:${p.row}`;
    if (p.kind === "head" && !headPoint.has(key)) headPoint.set(key, i);
  });
  const heads = groups.map(branchHeads);
  return (subject) => {
    policy.setData((subject.data ?? {}) as object);
    const input = subject.input === undefined ? undefined : new TextEncoder().encode(JSON.stringify(subject.input)).buffer;
    const hits = (): Uint8Array | null => (typeof ptr === "function" ? new Uint8Array(policy.mem.buffer, (ptr as () => number)(), points.length) : null);
    return groups.map((g, gi) => {
      if (g.kind === "function") return { outcome: { status: "not_evaluated", why: `function of ${g.arity} argument${g.arity === 1 ? "" : "s"}` }, branch: null };
      const id = out.entrypointIds[entry(g)];
      if (id === undefined) return { outcome: { status: "not_evaluated", why: "no entrypoint" }, branch: null };
      hits()?.fill(0);
      try {
        const rs = policy.evaluate(input, id) as readonly { result?: unknown }[];
        if (rs.length === 0) return { outcome: { status: "undefined" }, branch: null };
        const hit = hits();
        const decided = hit === null ? undefined : heads[gi]!.find((h) => {
          const i = headPoint.get(`${h.location.file}:${h.location.row}`);
          return i !== undefined && hit[i] !== 0;
        });
        return { outcome: { status: "value", value: rs[0]?.result }, branch: decided ?? null };
      } catch (e) {
        return { outcome: { status: "error", message: e instanceof Error ? e.message : String(e) }, branch: null };
      }
    });
  };
}
