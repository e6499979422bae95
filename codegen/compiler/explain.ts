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

export interface ExplainOptions {
  readonly modules: readonly SourceFile[];
  /** A Rego query (`data.toolgate.authz.decision`) or an entrypoint path (`toolgate/authz/decision`). */
  readonly query: string;
  /** Base data document (an object); `{}` when absent. */
  readonly data?: unknown;
  readonly input?: unknown;
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

export async function explainPolicy(opts: ExplainOptions): Promise<Explanation> {
  const q = parseQuery(queryText(opts.query), "query");
  if (q.body === null) return { rules: [], errors: q.errors };
  const front = compileModules(opts.modules);
  if (front.program === null) return { rules: [], errors: front.errors };
  const groups = front.program.groups;

  const roots = new Set(dataReads(q.body).flatMap((p) => groupsRead(groups, p)));
  const deps = reachable(roots, groupEdges(groups));
  const role = (i: number): RuleRole => (roots.has(i) ? "query" : deps.has(i) ? "dependency" : "other");

  const outcomes = await evaluateGroups(opts, groups);
  if (!Array.isArray(outcomes)) return { rules: [], errors: outcomes.errors };

  const fileOrder = new Map(opts.modules.map((m, i) => [m.file, i]));
  const byPosition = (a: SourceLocation, b: SourceLocation): number =>
    (fileOrder.get(a.file) ?? 0) - (fileOrder.get(b.file) ?? 0) || a.row - b.row || a.col - b.col;
  const rules = groups.map((g, i) => ({
    path: g.path.join("."),
    kind: g.kind,
    locations: [...(g.default === null ? [] : [g.default]), ...g.rules].map((r) => r.location).sort(byPosition),
    role: role(i),
    outcome: outcomes[i] as RuleOutcome,
  }));
  rules.sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || byPosition(a.locations[0] as SourceLocation, b.locations[0] as SourceLocation));
  return { rules, errors: [] };
}

/** One outcome per group: each non-function group is an entrypoint of one compiled module. */
async function evaluateGroups(opts: ExplainOptions, groups: readonly RuleGroup[]): Promise<RuleOutcome[] | { errors: Diagnostic[] }> {
  const entry = (g: RuleGroup): string => g.path.slice(1).join("/");
  const evaluable = groups.filter((g) => g.kind !== "function");
  // Unoptimised: the module is used once, and binaryen would dominate the run time.
  const out = compilePolicy({ modules: opts.modules, entrypoints: evaluable.map(entry), optimize: false });
  if (out.wasm === null) return { errors: out.errors };
  const policy = await loadPolicy(out.wasm, undefined, hostBuiltins);
  policy.setData((opts.data ?? {}) as object);
  const input = opts.input === undefined ? undefined : new TextEncoder().encode(JSON.stringify(opts.input)).buffer;
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
}
