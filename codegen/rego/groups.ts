/**
 * Rule grouping: computes each rule's absolute head path and kind, groups rules
 * by path, and reports conflicting kinds, function arity mismatches and
 * duplicate defaults (rego_type_error, as OPA).
 */
import type { Diagnostic } from "../diagnostics.js";
import type { Module, Rule, Term } from "./ast.js";
import type { RuleKind } from "./program.js";
import { pathKey } from "./program.js";

export interface PlacedRule {
  readonly module: Module;
  readonly rule: Rule;
  /** Ground prefix: the group's path. */
  readonly path: readonly string[];
  readonly kind: RuleKind;
  /** Head ref terms after `path` (still unresolved: scoping renames their vars). */
  readonly tail: readonly Term[];
}

export interface GroupDraft {
  readonly path: readonly string[];
  kind: RuleKind;
  arity: number;
  readonly rules: PlacedRule[];
  default: PlacedRule | null;
}

export function placeRule(module: Module, rule: Rule, errors: Diagnostic[]): PlacedRule | null {
  const head = rule.head;
  const [first, ...rest] = head.ref;
  if (first === undefined || first.type !== "var") return null;
  const full: Term[] = [...module.package.path.slice(1).map((value): Term => ({ type: "string", value, location: first.location })), { type: "string", value: first.name, location: first.location }, ...rest];
  let ground = 0;
  while (ground < full.length && (full[ground] as Term).type === "string") ground++;
  const path = ["data", ...full.slice(0, ground).map((t) => (t.type === "string" ? t.value : ""))];
  const tail = full.slice(ground);
  let kind: RuleKind;
  switch (head.kind) {
    case "function":
      if (tail.length > 0) {
        errors.push({ code: "rego_parse_error", message: "function name must be a dotted name without variables", location: rule.location });
        return null;
      }
      kind = "function";
      break;
    case "contains":
      kind = tail.length === 0 ? "partial_set" : "ref_set";
      break;
    case "value":
      kind = tail.length === 0 ? "complete" : tail.length === 1 ? "partial_object" : "ref_value";
      break;
  }
  if (rule.default && kind !== "complete" && kind !== "function") {
    errors.push({ code: "rego_type_error", message: `default rules must not have variables in their head: ${path.join(".")}`, location: rule.location });
    return null;
  }
  return { module, rule, path, kind, tail };
}

const KIND_NAME: Record<RuleKind, string> = {
  complete: "single-value",
  partial_set: "multi-value",
  partial_object: "single-value",
  function: "function",
  ref_value: "single-value",
  ref_set: "multi-value",
};

export function groupRules(placed: readonly PlacedRule[], errors: Diagnostic[]): GroupDraft[] {
  const byPath = new Map<string, GroupDraft>();
  for (const p of placed) {
    const key = pathKey(p.path);
    const arity = p.rule.head.kind === "function" ? p.rule.head.args.length : 0;
    let g = byPath.get(key);
    if (g === undefined) {
      g = { path: p.path, kind: p.kind, arity, rules: [], default: null };
      byPath.set(key, g);
    } else if (g.kind !== p.kind && !(isObjectLike(g.kind) && isObjectLike(p.kind))) {
      errors.push({ code: "rego_type_error", message: `conflicting rules ${p.path.join(".")} found (${KIND_NAME[g.kind]} and ${KIND_NAME[p.kind]} rules)`, location: p.rule.location });
      continue;
    } else if (g.kind === "function" && g.arity !== arity) {
      errors.push({ code: "rego_type_error", message: `conflicting rules ${p.path.join(".")} found (functions with ${g.arity} and ${arity} arguments)`, location: p.rule.location });
      continue;
    } else if (g.kind !== p.kind) {
      // partial_object and ref_value rules under one prefix form one general ref-head group.
      g.kind = "ref_value";
    }
    if (p.rule.default) {
      if (g.default !== null) {
        errors.push({ code: "rego_type_error", message: `multiple default rules ${p.path.join(".")} found`, location: p.rule.location });
        continue;
      }
      g.default = p;
    } else g.rules.push(p);
  }
  const groups = [...byPath.values()].sort((a, b) => comparePaths(a.path, b.path));
  checkPrefixConflicts(groups, errors);
  return groups;
}

/**
 * A rule whose whole value is fixed (complete, set, function) cannot have
 * rules below it: `p := 1` and `p.q := 2` conflict. Groups are sorted, so the
 * rules below a path follow it directly.
 */
function checkPrefixConflicts(groups: readonly GroupDraft[], errors: Diagnostic[]): void {
  groups.forEach((g, i) => {
    if (g.kind !== "complete" && g.kind !== "partial_set" && g.kind !== "function") return;
    const below: string[] = [];
    for (let j = i + 1; j < groups.length; j++) {
      const h = groups[j] as GroupDraft;
      if (h.path.length <= g.path.length || !g.path.every((seg, k) => h.path[k] === seg)) break;
      below.push(h.path.join("."));
    }
    const first = g.rules[0] ?? g.default;
    if (below.length > 0 && first !== undefined && first !== null) {
      errors.push({ code: "rego_type_error", message: `rule ${g.path.join(".")} conflicts with [${below.join(" ")}]`, location: first.rule.location });
    }
  });
}

function isObjectLike(k: RuleKind): boolean {
  return k === "partial_object" || k === "ref_value";
}

export function comparePaths(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return (a[i] as string) < (b[i] as string) ? -1 : 1;
  }
  return a.length - b.length;
}
