/**
 * Which generated functions need a fuel check at their entry. A leaf (no scan, no
 * call of a generated function) does not: it runs a bounded amount of its own code
 * (builtins it calls are charged at their call sites), and every path that reaches it
 * goes through a checked function or a charged scan, so the budget still bounds how
 * often it runs. Rego has no recursion (the front end rejects it), so the call graph
 * is acyclic and a function that calls others keeps its check, which bounds the
 * number of calls along a chain.
 */
import type { Block, Func, Stmt } from "../../plan/ir.js";

/** True when `f` loops or calls one of `funcs` (the generated functions). */
export function needsEntryCheck(f: Func, funcs: ReadonlySet<string>): boolean {
  return f.blocks.some((b) => blockLoopsOrCalls(b, funcs));
}

function blockLoopsOrCalls(b: Block, funcs: ReadonlySet<string>): boolean {
  return b.stmts.some((s) => stmtLoopsOrCalls(s, funcs));
}

function stmtLoopsOrCalls(s: Stmt, funcs: ReadonlySet<string>): boolean {
  switch (s.type) {
    case "ScanStmt": return true;
    case "CallStmt": return funcs.has(s.func);
    case "BlockStmt": return s.blocks.some((b) => blockLoopsOrCalls(b, funcs));
    case "NotStmt": return blockLoopsOrCalls(s.block, funcs);
    default: return false;
  }
}
