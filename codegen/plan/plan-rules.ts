/**
 * One function per rule node (all definitions of a rule path together), planned on
 * first use and shared. Under `with` mocks a node is planned again under another
 * name, because the functions it calls may be replaced.
 */
import type { Body, ElseClause, Term } from "../rego/ast.js";
import type { CompiledRule } from "../rego/program.js";
import { BlockWriter } from "./builder.js";
import { capturedArgs, capturedIds, type Ctx, type Mock } from "./context.js";
import type { Block, Local } from "./ir.js";
import { DATA, INPUT, local } from "./ir.js";
import { planDispatch, ruleDispatch } from "./rule-dispatch.js";
import type { RuleEntry, RuleNode } from "./rule-index.js";
import { valueOf } from "./rule-index.js";
import { locOf, nested, withVar } from "./scope.js";

const COMPLETE_CONFLICT = "eval_conflict_error: complete rules must not produce multiple outputs";
const FUNC_CONFLICT = "eval_conflict_error: functions must not produce multiple outputs for same inputs";
const KEY_CONFLICT = "eval_conflict_error: object keys must be unique";

/**
 * The name of the function computing `node` under the mocks in force. A new
 * function is only named here and planned later (`planPending`), so a chain of
 * rules calling each other never nests the planner's recursion.
 */
export function ruleFunc(c: Ctx, node: RuleNode): string {
  const sig = mockKey(c);
  const key = `${node.path.join("/")}|${sig}`;
  const known = c.s.funcNames.get(key);
  if (known !== undefined) return known;
  const name = `g${sig === "" ? 0 : c.s.funcNames.size + 1}.data.${node.path.join(".")}`;
  c.s.funcNames.set(key, name);
  c.s.pending.push({ name, node, mocks: c.mocks });
  return name;
}

/** Plans every function named so far, and those they name in turn. */
export function planPending(c: Ctx): void {
  for (let job = c.s.pending.shift(); job !== undefined; job = c.s.pending.shift()) planRuleFunc(c, job.name, job.node, job.mocks, job.unindexed === true);
}

/**
 * Adds the contribution of the group function that ran (its value in `result`, unset when
 * none ran) to `ret`: once, after the dispatch, so each group's code is one call.
 */
function mergeGroup(c: Ctx, node: RuleNode, result: Local, ret: Local): void {
  const w = c.w;
  w.emit({ type: "IsDefinedStmt", source: result });
  if (node.kind === "complete") {
    w.emit({ type: "AssignVarOnceStmt", source: local(result), target: ret, message: COMPLETE_CONFLICT });
    return;
  }
  const key = w.newLocal();
  const value = w.newLocal();
  const block = nested(c, () => {
    if (node.kind === "set") w.emit({ type: "SetAddStmt", set: ret, value: local(value) });
    else w.emit({ type: "ObjectInsertOnceStmt", object: ret, key: local(key), value: local(value), message: KEY_CONFLICT });
  });
  w.emit({ type: "ScanStmt", source: result, key, value, block });
}

function planRuleFunc(c: Ctx, name: string, node: RuleNode, mocks: ReadonlyMap<string, Mock>, unindexed = false): void {
  const w = new BlockWriter();
  const arity = node.kind === "function" ? node.arity : 0;
  const params: Local[] = [INPUT, DATA];
  for (let i = 0; i < arity; i++) params.push(w.newLocal());
  const captured = new Map<number, Local>();
  for (const id of capturedIds(mocks)) {
    const l = w.newLocal();
    params.push(l);
    captured.set(id, l);
  }
  const ret = w.newLocal();
  const fc: Ctx = { s: c.s, w, vars: new Map(), input: INPUT, data: DATA, mocks, captured, depth: 0 };
  const blocks: Block[] = [];
  const top = (fill: () => void): void => {
    blocks.push(nested(fc, fill));
  };
  const start = (rule: CompiledRule): void => {
    fc.vars.clear();
    w.loc = locOf(fc, rule.location);
    c.s.at = rule.location;
  };
  if (node.kind === "set") top(() => w.emit({ type: "MakeSetStmt", target: ret }));
  if (node.kind === "object" || node.kind === "nested") top(() => w.emit({ type: "MakeObjectStmt", target: ret }));
  const jobs: { depth: number; plan: () => void }[] = [];
  const indexable = !unindexed && c.s.ruleIndex && c.s.coverage === null && (node.kind === "complete" || node.kind === "set" || node.kind === "object");
  const dispatch = indexable ? ruleDispatch(node.rules) : null;
  for (const entry of dispatch?.rest ?? node.rules) {
    if (entry.rule.default) continue;
    jobs.push({ depth: entry.rest.length, plan: () => {
      start(entry.rule);
      top(() => planDefinition(fc, node, entry, params.slice(2, 2 + arity), ret));
    } });
  }
  if (dispatch !== null) {
    // Rules testing one input path against constants: only the group of the input's value
    // runs, each group in a function of its own (a function's locals are bounded).
    const groupFuncs = dispatch.groups.map((entries, i) => {
      const groupName = `${name}#${i}`;
      c.s.pending.push({ name: groupName, node: { ...node, children: new Map(), rules: [...entries] }, mocks, unindexed: true });
      return groupName;
    });
    jobs.push({ depth: 1, plan: () => {
      const result = w.newLocal();
      top(() => planDispatch(fc, dispatch, (i) => w.emit({ type: "CallStmt", func: groupFuncs[i]!, args: [local(fc.input), local(fc.data), ...capturedArgs(fc, fc.mocks)], result })));
      top(() => mergeGroup(fc, node, result, ret));
    } });
  }
  if (node.kind === "object" || node.kind === "nested") {
    // Rules below this node (`p.a.r := 42` next to `p[q].r := ...`) add into its object.
    for (const [rel, entry] of descendantRules(node)) {
      if (entry.rule.default) continue;
      const at = entry.rule.location;
      const keys: Term[] = [...rel.map((value): Term => ({ type: "string", value, location: at })), ...entry.rest];
      jobs.push({ depth: keys.length, plan: () => {
        start(entry.rule);
        top(() => fc.s.ops.body(fc, entry.rule.body, () => produceNested(fc, { ...entry, rest: keys }, ret, entry.rule.key !== null)));
      } });
    }
    // Deeper heads first: a shorter head's value then lands on the objects they built and
    // conflicts with them (OPA: a rule's value is not merged with values injected below it).
    jobs.sort((a, b) => b.depth - a.depth);
  }
  for (const job of jobs) job.plan();
  for (const entry of node.rules) {
    if (!entry.rule.default) continue;
    start(entry.rule);
    top(() => {
      w.emit({ type: "IsUndefinedStmt", source: ret });
      const point = fc.s.coverage?.heads.get(entry.rule);
      if (point !== undefined) w.emit({ type: "CoverStmt", point });
      // The body holds only what the front end lifted out of the default value.
      fc.s.ops.body(fc, entry.rule.body, () => fc.s.ops.term(fc, valueOf(entry.rule), (o) => w.emit({ type: "AssignVarStmt", source: o, target: ret })));
    });
  }
  top(() => w.emit({ type: "ReturnLocalStmt", source: ret }));
  c.s.funcs.push({ name, params, return: ret, blocks, path: [...node.path] });
}

/** Non-function rules strictly below `node`, with their path relative to it. */
function descendantRules(node: RuleNode): [string[], RuleEntry][] {
  const out: [string[], RuleEntry][] = [];
  const visit = (n: RuleNode, rel: string[]): void => {
    for (const [name, ch] of [...n.children].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const r = [...rel, name];
      if (ch.kind !== "function") for (const e of ch.rules) out.push([r, e]);
      visit(ch, r);
    }
  };
  visit(node, []);
  return out;
}

function mockKey(c: Ctx): string {
  if (c.mocks.size === 0) return "";
  return JSON.stringify([...c.mocks.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, m]) => [k, m.kind === "data" ? "data" : m.kind === "captured" ? `captured ${m.id}` : JSON.stringify(m.kind === "func" ? m.target : m.value)]));
}

/** One definition (with its else chain) of the rules at `node`. */
function planDefinition(c: Ctx, node: RuleNode, entry: RuleEntry, args: readonly Local[], ret: Local): void {
  const { rule } = entry;
  // Parameters are distinct vars; the front end unifies non-var patterns in the body.
  const bindArgs = (i: number, k: () => void): void => {
    const v = rule.args[i];
    if (v === undefined) return k();
    if (v.type !== "var") {
      c.s.errors.push({ code: "rego_compile_error", message: `internal compiler error: parameter ${i + 1} of ${node.path.join(".")} is not a var`, location: v.location });
      return;
    }
    withVar(c, v.name, args[i]!, () => bindArgs(i + 1, k));
  };
  const cover = (n: CompiledRule | ElseClause): void => {
    const point = c.s.coverage?.heads.get(n);
    if (point !== undefined) c.w.emit({ type: "CoverStmt", point });
  };
  if (rule.else === null) {
    return bindArgs(0, () => c.s.ops.body(c, rule.body, () => {
      cover(rule);
      produce(c, node, entry, ret);
    }));
  }
  // else chain: the first alternative whose body succeeds gives the value.
  bindArgs(0, () => {
    const chosen = c.w.newLocal();
    c.w.emit({ type: "ResetLocalStmt", target: chosen });
    const alts: { body: Body; value: Term; node: CompiledRule | ElseClause }[] = [{ body: rule.body, value: valueOf(rule), node: rule }];
    for (let e: ElseClause | null = rule.else; e !== null; e = e.else) alts.push({ body: e.body, value: e.value, node: e });
    const wrapperDepth = c.depth + 1;
    const conflict = node.kind === "function" ? FUNC_CONFLICT : COMPLETE_CONFLICT;
    const wrapper = nested(c, () => {
      const inner = alts.map((alt) =>
        nested(c, () => {
          // Every solution of the chosen alternative must agree (OPA reports a conflict).
          c.s.ops.body(c, alt.body, () => {
            cover(alt.node);
            c.s.ops.term(c, alt.value, (o) => c.w.emit({ type: "AssignVarOnceStmt", source: o, target: chosen, message: conflict }));
          });
          // Reached only when the body had a solution: skip the remaining alternatives.
          c.w.emit({ type: "BreakStmt", index: c.depth - wrapperDepth });
        }),
      );
      c.w.emit({ type: "BlockStmt", blocks: inner });
    });
    c.w.emit({ type: "BlockStmt", blocks: [wrapper] });
    c.w.emit({ type: "IsDefinedStmt", source: chosen });
    c.w.emit({ type: "AssignVarOnceStmt", source: local(chosen), target: ret, message: conflict });
  });
}

/** After a successful body: add the head's contribution to `ret`. */
function produce(c: Ctx, node: RuleNode, entry: RuleEntry, ret: Local): void {
  const w = c.w;
  switch (node.kind) {
    case "complete":
    case "function":
      return c.s.ops.term(c, valueOf(entry.rule), (o) =>
        w.emit({ type: "AssignVarOnceStmt", source: o, target: ret, message: node.kind === "function" ? FUNC_CONFLICT : COMPLETE_CONFLICT }),
      );
    case "set":
      return c.s.ops.term(c, valueOf(entry.rule), (o) => w.emit({ type: "SetAddStmt", set: ret, value: o }));
    case "object":
      return c.s.ops.term(c, entry.rest[0]!, (key) =>
        c.s.ops.term(c, valueOf(entry.rule), (o) => w.emit({ type: "ObjectInsertOnceStmt", object: ret, key, value: o, message: KEY_CONFLICT })),
      );
    case "nested":
    case null:
      return produceNested(c, entry, ret, entry.rule.key !== null);
  }
}

/** General ref heads: `p[x].y := v`, `p[x] contains y` build nested objects under the node. */
function produceNested(c: Ctx, entry: RuleEntry, ret: Local, isSet: boolean): void {
  const keys = entry.rest;
  const plan = (i: number, cur: Local): void => {
    const last = isSet ? i === keys.length : i === keys.length - 1;
    if (last && !isSet) {
      return c.s.ops.term(c, keys[i]!, (key) =>
        c.s.ops.term(c, valueOf(entry.rule), (o) =>
          c.w.emit({ type: "ObjectInsertOnceStmt", object: cur, key, value: o, message: KEY_CONFLICT }),
        ),
      );
    }
    if (last && isSet) {
      return c.s.ops.term(c, valueOf(entry.rule), (o) => c.w.emit({ type: "SetAddStmt", set: cur, value: o }));
    }
    c.s.ops.term(c, keys[i]!, (key) => {
      const next = c.w.newLocal();
      c.w.emit({ type: "ResetLocalStmt", target: next });
      const get = nested(c, () => c.w.emit({ type: "DotStmt", source: local(cur), key, target: next }));
      c.w.emit({ type: "BlockStmt", blocks: [get] });
      const make = nested(c, () => {
        c.w.emit({ type: "IsUndefinedStmt", source: next });
        const leafSet = isSet && i === keys.length - 1;
        c.w.emit(leafSet ? { type: "MakeSetStmt", target: next } : { type: "MakeObjectStmt", target: next });
        c.w.emit({ type: "ObjectInsertStmt", object: cur, key, value: local(next) });
      });
      c.w.emit({ type: "BlockStmt", blocks: [make] });
      plan(i + 1, next);
    });
  };
  plan(0, ret);
}
