/**
 * The rule tree: every rule group of the checked program sits at the node of its
 * path under data (package path plus the ground prefix of its head reference). The
 * planner walks this tree to turn `data` references into calls of rule functions,
 * base-data lookups, or virtual documents that merge both.
 */
import type { Term } from "../rego/ast.js";
import type { CompiledRule, Program, RuleKind as GroupKind } from "../rego/program.js";

/** How the rules at a node produce their value. */
export type RuleKind =
  | "complete" // p := v
  | "set" // p contains x
  | "object" // p[k] := v
  | "nested" // p[x].y := v : general ref head, builds nested objects
  | "function";

export interface RuleEntry {
  readonly rule: CompiledRule;
  /** Head ref terms after the node path (empty for complete rules and functions). */
  readonly rest: readonly Term[];
}

export interface RuleNode {
  readonly path: readonly string[];
  readonly children: Map<string, RuleNode>;
  /** The group's definitions in source order, its default rule (if any) last. */
  readonly rules: RuleEntry[];
  kind: RuleKind | null;
  /** Number of parameters (functions). */
  arity: number;
  /** A module declares this package: it is a document (`{}` at least) even without rules. */
  package: boolean;
}

export interface RuleIndex {
  readonly root: RuleNode;
}

const KINDS: Record<GroupKind, RuleKind> = {
  complete: "complete",
  partial_set: "set",
  partial_object: "object",
  ref_value: "nested",
  ref_set: "nested",
  function: "function",
};

export function newNode(path: readonly string[]): RuleNode {
  return { path, children: new Map(), rules: [], kind: null, arity: 0, package: false };
}

export function buildRuleIndex(program: Program): RuleIndex {
  const root = newNode([]);
  for (const pkg of program.packages) nodeAt(root, pkg.slice(1)).package = true;
  for (const g of program.groups) {
    const node = nodeAt(root, g.path.slice(1));
    node.kind = KINDS[g.kind];
    node.arity = g.arity;
    for (const rule of [...g.rules, ...(g.default === null ? [] : [g.default])]) node.rules.push({ rule, rest: rule.refTail });
  }
  return { root };
}

export function nodeAt(root: RuleNode, path: readonly string[]): RuleNode {
  let n = root;
  for (const seg of path) {
    let c = n.children.get(seg);
    if (c === undefined) {
      c = newNode([...n.path, seg]);
      n.children.set(seg, c);
    }
    n = c;
  }
  return n;
}

export function findNode(root: RuleNode, path: readonly string[]): RuleNode | undefined {
  let n: RuleNode | undefined = root;
  for (const seg of path) {
    n = n.children.get(seg);
    if (n === undefined) return undefined;
  }
  return n;
}

/** True when the node or a descendant holds a non-function rule or is a package. */
export function hasDocuments(n: RuleNode): boolean {
  if (n.package || (n.rules.length > 0 && n.kind !== "function")) return true;
  for (const c of n.children.values()) if (hasDocuments(c)) return true;
  return false;
}

/** True when the node or a descendant holds a non-function rule. */
export function hasValueRules(n: RuleNode): boolean {
  if (n.rules.length > 0 && n.kind !== "function") return true;
  for (const c of n.children.values()) if (hasValueRules(c)) return true;
  return false;
}

/** The value term of a definition: the set element for sets, else the value. */
export function valueOf(rule: CompiledRule): Term {
  return rule.key ?? rule.value ?? { type: "boolean", value: true, location: rule.location };
}

