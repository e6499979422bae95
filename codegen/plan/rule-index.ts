/**
 * The rule tree: every rule sits at the node of its path under data (package path
 * plus the ground prefix of its head reference). The planner walks this tree to turn
 * `data` references into calls of rule functions, base-data lookups, or virtual
 * documents that merge both.
 */
import type { Import, Module, Rule, Term } from "../rego/ast.js";

/** How the rules at a node produce their value. */
export type RuleKind =
  | "complete" // p := v
  | "set" // p contains x
  | "object" // p[k] := v
  | "nested" // p[x].y := v : general ref head, builds nested objects
  | "function";

export interface RuleEntry {
  readonly rule: Rule;
  readonly module: Module;
  /** Head ref terms after the node path (empty for complete rules and functions). */
  readonly rest: readonly Term[];
}

export interface RuleNode {
  readonly path: readonly string[];
  readonly children: Map<string, RuleNode>;
  readonly rules: RuleEntry[];
  kind: RuleKind | null;
  /** A module declares this package: it is a document (`{}` at least) even without rules. */
  package: boolean;
}

export interface RuleIndex {
  readonly root: RuleNode;
  /** Packages by dotted path, for resolving rule names inside a module. */
  readonly modules: readonly Module[];
}

export function newNode(path: readonly string[]): RuleNode {
  return { path, children: new Map(), rules: [], kind: null, package: false };
}

export function buildRuleIndex(modules: readonly Module[]): RuleIndex {
  const root = newNode([]);
  for (const m of modules) {
    const pkg = m.package.path.slice(1);
    nodeAt(root, pkg).package = true;
    for (const rule of m.rules) {
      const ref = rule.head.ref;
      const ground: string[] = [];
      let i = 0;
      for (; i < ref.length; i++) {
        const t = ref[i]!;
        if (i === 0 && t.type === "var") ground.push(t.name);
        else if (t.type === "string") ground.push(t.value);
        else break;
      }
      let rest = ref.slice(i);
      let kind: RuleKind;
      if (rule.head.kind === "function") kind = "function";
      else if (rule.head.kind === "contains") kind = rest.length === 0 ? "set" : "nested";
      else if (rest.length === 0) kind = "complete";
      else if (rest.length === 1) kind = "object";
      else kind = "nested";
      // `p.q contains "x"` style heads with a constant last key still build a set at p.q.
      if (rule.head.kind === "contains" && rest.length === 0) rest = [];
      const node = nodeAt(root, [...pkg, ...ground]);
      node.rules.push({ rule, module: m, rest });
      if (node.kind === null || node.kind === kind) node.kind = kind;
      else if (!(rule.default && node.kind !== "function")) node.kind = mergeKinds(node.kind, kind);
    }
  }
  return { root, modules };
}

function mergeKinds(a: RuleKind, b: RuleKind): RuleKind {
  if (a === "function" || b === "function") return "function";
  if (a === "complete") return b;
  if (b === "complete") return a;
  return "nested";
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

/** Import alias -> absolute path (["data", ...] or ["input", ...]). */
export function importAliases(imports: readonly Import[]): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const imp of imports) {
    if (imp.path[0] !== "data" && imp.path[0] !== "input") continue;
    const name = imp.alias ?? imp.path[imp.path.length - 1]!;
    out.set(name, imp.path);
  }
  return out;
}
