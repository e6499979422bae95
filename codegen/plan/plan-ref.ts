/**
 * References. `input...` and local values are walked with dots and scans; `data...`
 * is walked down the rule tree: a rule node becomes a call of its function, a key
 * outside every rule path becomes a base-data lookup, and a prefix of rule paths
 * becomes a virtual document (rule values merged into the base document).
 */
import type { RefTerm, Term } from "../rego/ast.js";
import { capturedArgs, type Ctx } from "./context.js";
import type { Operand } from "./ir.js";
import { local, str } from "./ir.js";
import type { RuleNode } from "./rule-index.js";
import { findNode, hasDocuments, hasValueRules } from "./rule-index.js";
import { asLocal, bindOperand, dot, isBound, isGlobalName, locOf, loopBody, nested, unboundVars } from "./scope.js";

export function planRef(c: Ctx, r: RefTerm, k: (o: Operand) => void): void {
  c.w.loc = locOf(c, r.location);
  const h = r.head;
  if (h.type !== "var") return c.s.ops.term(c, h, (o) => walk(c, o, r.path, k));
  const bound = c.vars.get(h.name);
  if (bound !== undefined && bound >= 0) return walk(c, local(bound), r.path, k);
  if (h.name === "input" && !c.vars.has(h.name)) {
    // The input may be undefined (no input given): a bare `input` must not pass as a value.
    if (r.path.length === 0) c.w.emit({ type: "IsDefinedStmt", source: c.input });
    return walk(c, local(c.input), r.path, k);
  }
  if (h.name === "data" && !c.vars.has(h.name)) return planData(c, r.path, k);
  c.s.errors.push({ code: "rego_unsafe_var_error", message: `var ${h.name} is unsafe`, location: h.location });
}

/** Dots and scans over an evaluated value. */
export function walk(c: Ctx, o: Operand, path: readonly Term[], k: (o: Operand) => void): void {
  if (path.length === 0) return k(o);
  const [p, ...rest] = path as [Term, ...Term[]];
  const scanBinds = (p.type === "var" && !isBound(c, p.name) && !isGlobalName(c, p.name)) ||
    ((p.type === "array" || p.type === "object") && unboundVars(c, p).length > 0);
  if (scanBinds) {
    const source = asLocal(c, o);
    const key = c.w.newLocal();
    const value = c.w.newLocal();
    const block = loopBody(c, () => {
      if (p.type === "var") bindOperand(c, p.name, local(key), () => walk(c, local(value), rest, k));
      else c.s.ops.unifyOperand(c, p, local(key), () => walk(c, local(value), rest, k));
    });
    c.w.emit({ type: "ScanStmt", source, key, value, block });
    return;
  }
  c.s.ops.term(c, p, (keyOp) => walk(c, local(dot(c, o, keyOp)), rest, k));
}

function constKey(t: Term): string | null {
  return t.type === "string" ? t.value : null;
}

/** `data` followed by `path`. */
export function planData(c: Ctx, path: readonly Term[], k: (o: Operand) => void): void {
  planDataAt(c, c.s.index.root, path, k);
}

/**
 * `data.a[h].r` with a non-constant key: each rule child of `data.a` is tried with
 * its name unified with the key, and the base document's other keys are scanned.
 * Unlike building the whole virtual document, the rest of the ref (`.r`) decides
 * which rules are evaluated, so a rule may read a sibling package through it
 * without calling itself.
 */
function dataByKey(c: Ctx, node: RuleNode, keyTerm: Term, rest: readonly Term[], k: (o: Operand) => void): void {
  const ruleChildren = [...node.children.keys()].sort().filter((name) => {
    const child = node.children.get(name)!;
    return child.kind !== "function" && hasAnyRules(child);
  });
  for (const name of ruleChildren) {
    const block = nested(c, () =>
      c.s.ops.unifyOperand(c, keyTerm, str(c.s.statics.string(name)), () => planDataAt(c, node.children.get(name)!, rest, k)),
    );
    c.w.emit({ type: "BlockStmt", blocks: [block] });
  }
  const block = nested(c, () => {
    const source = asLocal(c, baseDoc(c, node.path));
    const keyLocal = c.w.newLocal();
    const value = c.w.newLocal();
    const scan = loopBody(c, () => {
      for (const name of ruleChildren) {
        const same = nested(c, () => c.w.emit({ type: "EqualStmt", a: local(keyLocal), b: str(c.s.statics.string(name)) }));
        c.w.emit({ type: "NotStmt", block: same });
      }
      c.s.ops.unifyOperand(c, keyTerm, local(keyLocal), () => walk(c, local(value), rest, k));
    });
    c.w.emit({ type: "ScanStmt", source, key: keyLocal, value, block: scan });
  });
  c.w.emit({ type: "BlockStmt", blocks: [block] });
}

/** `planData` continued from a node of the rule tree. */
function planDataAt(c: Ctx, start: RuleNode, path: readonly Term[], k: (o: Operand) => void): void {
  let node = start;
  for (let i = 0; ; i++) {
    if (isRuleNode(node)) return ruleValue(c, node, (o) => walk(c, o, path.slice(i), k));
    if (i === path.length) return virtualDoc(c, node, k);
    const key = constKey(path[i]!);
    const child = key === null ? undefined : node.children.get(key);
    if (child !== undefined) {
      node = child;
      continue;
    }
    if (key !== null || !hasDocuments(node)) return walk(c, baseDoc(c, node.path), path.slice(i), k);
    return dataByKey(c, node, path[i]!, path.slice(i + 1), k);
  }
}

/** Rule nodes whose function also plans the rules below them (ref heads). */
export function producesObject(n: RuleNode): boolean {
  return n.kind === "object" || n.kind === "nested";
}

function hasAnyRules(n: RuleNode): boolean {
  if (n.rules.length > 0 || n.package) return true;
  for (const ch of n.children.values()) if (hasAnyRules(ch)) return true;
  return false;
}

function isRuleNode(n: RuleNode): boolean {
  return n.rules.length > 0 && n.kind !== "function";
}

/** The base document at `path` (a chain of dots from the data local). */
function baseDoc(c: Ctx, path: readonly string[]): Operand {
  let o: Operand = local(c.data);
  for (const seg of path) o = local(dot(c, o, str(c.s.statics.string(seg))));
  return o;
}

/** The value of the rules at a rule node (its function, or a `with` replacement). */
function ruleValue(c: Ctx, node: RuleNode, k: (o: Operand) => void): void {
  const mock = c.mocks.get(node.path.join("/"));
  if (mock !== undefined && mock.kind === "data") return k(baseDoc(c, node.path));
  const result = c.w.newLocal();
  const func = c.s.ops.ruleFunc(c, node);
  c.w.emit({ type: "CallStmt", func, args: [local(c.input), local(c.data), ...capturedArgs(c, c.mocks)], result });
  if (!producesObject(node) && [...node.children.values()].some(hasValueRules)) {
    // Rules below a rule node (ref heads such as `p[x] := 1` next to `p.q := 2`).
    return virtualDoc(c, node, (sub) => {
      const merged = c.w.newLocal();
      c.w.emit({ type: "ObjectMergeStmt", a: result, b: asLocal(c, sub), target: merged });
      k(local(merged));
    }, true);
  }
  k(local(result));
}

/** Object of the rule values under `node`, merged with the base document there. */
export function virtualDoc(c: Ctx, node: RuleNode, k: (o: Operand) => void, childrenOnly = false): void {
  const obj = c.w.newLocal();
  c.w.emit({ type: "MakeObjectStmt", target: obj });
  const names = [...node.children.keys()].sort();
  for (const name of names) {
    const child = node.children.get(name)!;
    // Function-only subtrees still show their path as empty objects; functions do not.
    if (child.kind === "function" || !hasAnyRules(child)) continue;
    const key = str(c.s.statics.string(name));
    const block = nested(c, () => {
      const insert = (o: Operand): void => c.w.emit({ type: "ObjectInsertStmt", object: obj, key, value: o });
      if (isRuleNode(child)) ruleValue(c, child, insert);
      else virtualDoc(c, child, insert);
    });
    c.w.emit({ type: "BlockStmt", blocks: [block] });
  }
  if (!childrenOnly) {
    const block = nested(c, () => {
      const base = baseDoc(c, node.path);
      c.w.emit({ type: "IsObjectStmt", source: base });
      const baseLocal = asLocal(c, base);
      const wrapperDepth = c.depth + 1;
      const wrapper = nested(c, () => {
        const tryMerge = nested(c, () => {
          const merged = c.w.newLocal();
          c.w.emit({ type: "ObjectMergeStmt", a: obj, b: baseLocal, target: merged });
          c.w.emit({ type: "AssignVarStmt", source: local(merged), target: obj });
          c.w.emit({ type: "BreakStmt", index: c.depth - wrapperDepth });
        });
        c.w.emit({ type: "BlockStmt", blocks: [tryMerge] });
        // The merge found a value both in base data and in a rule: base data wins (OPA's topdown).
        c.w.emit({ type: "AssignVarStmt", source: local(baseLocal), target: obj });
      });
      c.w.emit({ type: "BlockStmt", blocks: [wrapper] });
    });
    c.w.emit({ type: "BlockStmt", blocks: [block] });
  }
  k(local(obj));
}

export { findNode };
