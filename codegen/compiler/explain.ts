/**
 * Decision explanations (`toolgate eval --explain`): the value of every rule of a
 * policy for one input, with the rules the query depends on marked. All rule
 * groups are compiled as extra entrypoints of ONE module and evaluated through
 * the opa-wasm SDK, so the values are exactly what the shipped module computes.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import type { Diagnostic, SourceLocation } from "../diagnostics.js";
import type { RuleGroup, RuleKind } from "../rego/index.js";
import { compileModules, parseQuery } from "../rego/index.js";
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
      return { rules: order.map((i) => ({ ...rules[i]!, outcome: outcomes[i]! })), errors: [] };
    },
  };
}

/** Compiles and explains once; compile errors come back in `errors` with no rules. */
export async function explainPolicy(opts: ExplainOptions): Promise<Explanation> {
  const ex = await compileExplainer(opts);
  if ("errors" in ex) return { rules: [], errors: ex.errors };
  return ex.explain(opts);
}

type Evaluate = (subject: ExplainSubject) => RuleOutcome[];

/** One module with each non-function group as an entrypoint; the function returns one outcome per group. */
async function compileGroups(modules: readonly SourceFile[], groups: readonly RuleGroup[]): Promise<Evaluate | { errors: Diagnostic[] }> {
  const entry = (g: RuleGroup): string => g.path.slice(1).join("/");
  const evaluable = groups.filter((g) => g.kind !== "function");
  // Unoptimised: the module is used for a few evaluations, and binaryen would dominate the run time.
  const out = compilePolicy({ modules, entrypoints: evaluable.map(entry), optimize: false });
  if (out.wasm === null) return { errors: out.errors };
  const policy = await loadPolicy(out.wasm, undefined, hostBuiltins);
  return (subject) => {
    policy.setData((subject.data ?? {}) as object);
    const input = subject.input === undefined ? undefined : new TextEncoder().encode(JSON.stringify(subject.input)).buffer;
    return groups.map((g): RuleOutcome => {
      if (g.kind === "function") return { status: "not_evaluated", why: `function of ${g.arity} argument${g.arity === 1 ? "" : "s"}` };
      const id = out.entrypointIds[entry(g)];
      if (id === undefined) return { status: "not_evaluated", why: "no entrypoint" };
      try {
        const rs = policy.evaluate(input, id) as readonly { result?: unknown }[];
        return rs.length === 0 ? { status: "undefined" } : { status: "value", value: rs[0]?.result };
      } catch (e) {
        return { status: "error", message: e instanceof Error ? e.message : String(e) };
      }
    });
  };
}
