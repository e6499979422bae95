/**
 * Loop-invariant lookups: a constant-key ref into `input` or base `data` inside a
 * scan is looked up on its first use in the call and reused by later iterations
 * (a guarded block: `is_undefined done; done = 1; value = source[key]`). An undefined
 * lookup still fails just where it stood; a lookup in a document a `with` replaces
 * inside the loop is made on every iteration.
 */
import { describe, expect, it } from "vitest";
import type { Block, Stmt } from "../../codegen/plan/ir.js";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { evaluate } from "../wasm-emit/sdk-harness.js";

function planOf(rego: string, entrypoint: string) {
  const r = compilePolicy({ modules: [{ file: "t.rego", source: rego }], entrypoints: [entrypoint], stopAfter: "plan" });
  if (r.plan === undefined || r.errors.length > 0) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

/**
 * Static-string keys of the DotStmts inside scans, over every function: `once` those
 * in a block that runs only while its flag is unset, `every` the others.
 */
function lookups(rego: string, entrypoint: string): { once: string[]; every: string[] } {
  const plan = planOf(rego, entrypoint);
  const out = { once: [] as string[], every: [] as string[] };
  const visit = (b: Block, inLoop: boolean, guarded: boolean): void => {
    const g = guarded || (b.stmts[0]?.type === "IsUndefinedStmt" && b.stmts[1]?.type === "AssignIntStmt");
    for (const s of b.stmts as Stmt[]) {
      if (inLoop && s.type === "DotStmt" && s.key.kind === "string") (g ? out.once : out.every).push(plan.static.strings[s.key.index]!);
      if (s.type === "ScanStmt") visit(s.block, true, false);
      if (s.type === "NotStmt") visit(s.block, inLoop, g);
      if (s.type === "BlockStmt") s.blocks.forEach((x) => visit(x, inLoop, g));
    }
  };
  for (const f of plan.funcs) f.blocks.forEach((b) => visit(b, false, false));
  return out;
}

const REGO = `package t
import rego.v1

n := count([x | some x in input.xs; x < input.cfg.limit; x != input.cfg.skip; x in data.allowed])
nested := count([[x, y] | some x in input.xs; some y in input.ys; y < input.cfg.limit])
missing := [x | some x in input.xs; input.cfg.nope]
negated := [x | some x in input.xs; not input.cfg.nope]
replaced := [v | some s in input.sets; v := input.cfg.limit with input.cfg as {"limit": s}]
`;

describe("loop-invariant lookups", () => {
  it("a constant-key lookup of input or data inside a loop is computed once per call", () => {
    const { once, every } = lookups(REGO, "t/n");
    expect(once).toEqual(expect.arrayContaining(["cfg", "limit", "skip", "allowed"]));
    expect(every).toEqual([]);
    // in the inner loop of two, too
    const nested = lookups(REGO, "t/nested");
    expect(nested.once).toEqual(expect.arrayContaining(["ys", "cfg", "limit"]));
    expect(nested.every).toEqual([]);
  });

  it("a lookup in a document that a with replaces inside the loop is made on every iteration", () => {
    expect(lookups(REGO, "t/replaced").every).toContain("limit");
  });

  it("gives the values of lookups made where they stand; an undefined one fails only there", async () => {
    const input = { xs: [1, 2, 3, 4], ys: [1, 5], cfg: { limit: 4, skip: 2 }, sets: [1, 2] };
    const data = { allowed: [1, 2, 3] };
    const run = (ep: string, i: unknown = input) => evaluate({ modules: [REGO], entrypoint: ep, input: i, data });
    expect(await run("t/n")).toEqual([{ result: 2 }]);
    expect(await run("t/nested")).toEqual([{ result: 4 }]);
    expect(await run("t/missing")).toEqual([{ result: [] }]);
    expect(await run("t/negated")).toEqual([{ result: [1, 2, 3, 4] }]);
    expect(await run("t/replaced")).toEqual([{ result: [1, 2] }]);
    // no cfg at all: the comparisons fail in the loop, the comprehensions stay defined
    expect(await run("t/n", { xs: [1] })).toEqual([{ result: 0 }]);
    expect(await run("t/negated", { xs: [1] })).toEqual([{ result: [1] }]);
  });
});
