/**
 * Which generated functions need a fuel check at their entry. Rego has no recursion
 * (the front end rejects it), so the call graph is acyclic; the work of one call is
 * then bounded by the code it reaches, except for scans (charged by their length) and
 * builtins (charged at their call sites). A function needs no entry check when it
 * has no scan and calls only leaves, where a leaf has no scan and calls no generated
 * function: such a call does at most (code size)^2 steps, and whoever makes it pays
 * (a checked function's entry, a scan's units per iteration, or the plan itself, which
 * runs once). Every other function keeps its check, which bounds chains of calls
 * (a function calling another twice, n levels deep, makes 2^n calls without a loop).
 */
import type { Block, Func, Stmt } from "../../plan/ir.js";

/** The names of `funcs` that need an entry check. */
export function functionsNeedingEntryCheck(funcs: readonly Func[]): Set<string> {
  const names = new Set(funcs.map((f) => f.name));
  const calls = new Map<string, Set<string>>();
  const scans = new Set<string>();
  for (const f of funcs) {
    const callees = new Set<string>();
    if (walk(f.blocks, names, callees)) scans.add(f.name);
    calls.set(f.name, callees);
  }
  const isLeaf = (name: string): boolean => !scans.has(name) && calls.get(name)!.size === 0;
  const checked = new Set<string>();
  for (const f of funcs) {
    if (scans.has(f.name) || [...calls.get(f.name)!].some((c) => !isLeaf(c))) checked.add(f.name);
  }
  return checked;
}

/** Adds the generated functions `blocks` call to `callees`; true when they contain a scan. */
function walk(blocks: readonly Block[], funcs: ReadonlySet<string>, callees: Set<string>): boolean {
  let scan = false;
  const visit = (s: Stmt): void => {
    switch (s.type) {
      case "ScanStmt":
        scan = true;
        s.block.stmts.forEach(visit);
        return;
      case "CallStmt":
        if (funcs.has(s.func)) callees.add(s.func);
        return;
      case "BlockStmt":
        s.blocks.forEach((b) => b.stmts.forEach(visit));
        return;
      case "NotStmt":
        s.block.stmts.forEach(visit);
        return;
      default:
        return;
    }
  };
  blocks.forEach((b) => b.stmts.forEach(visit));
  return scan;
}
