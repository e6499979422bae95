/**
 * Backend: IR policy -> WebAssembly module for the opa-wasm SDK. Reads runtime.wasm,
 * adds one function per IR func and plan, replaces the runtime's `toolgate.*`
 * imports (eval dispatch, entrypoints and builtins maps, heap base), appends static
 * data, validates, optionally optimises, and emits the binary.
 */
import * as binaryen from "../link/builder-api.js";
import type { Func, Plan, Policy, RuleResult } from "../../plan/ir.js";
import { hostBuiltinName } from "../host-builtins.js";
import type { CustomBuiltins } from "../../../src/policy/builtins/index.js";
import { builtinTable } from "./builtins.js";
import { addDecisionExport } from "./decision-export.js";
import type { EmitEnv } from "./emit-func.js";
import { FuncEmitter } from "./emit-func.js";
import { Fuel } from "./fuel.js";
import { FuelBuiltins } from "./fuel-builtins.js";
import { functionsNeedingEntryCheck } from "./fuel-leaves.js";
import { Memo } from "./memo.js";
import { appendStaticData, exportedName, finishHeapBase, importedFunction, linkModule, optimizeGenerated, readRuntime, replaceImport, runtimeHasGlobal, setGlobalInit, staticDataStart, validationError } from "../link/index.js";
import { inputPaths, inputPathsTable } from "./input-paths.js";
import { CODE_EXPORTS as RT, HOST_IMPORT_MODULE, HOST_IMPORTS, hostBuiltinImport, MODULE_EXPORTS, SDK_EXPORTS, SECTIONS, TOOLGATE_HOST_EXPORTS } from "../../../src/policy/abi.js";
import type { InputPaths, InputPathsSectionJson } from "../../../src/policy/abi.js";
import { memberPositions } from "./member-positions.js";
import { StaticData } from "./static-data.js";

export interface EmitOptions {
  readonly strictBuiltinErrors?: boolean;
  readonly optimize?: boolean;
  /** Keep `opa_wasm_abi_minor_version` below 2 to exercise the SDK's legacy path. */
  readonly legacyAbi?: boolean;
  /** Custom builtins the plan may call (through the host, as toolgate's host builtins). */
  readonly customBuiltins?: CustomBuiltins;
  /** Fuel checks for bounded evaluation (default on; off only to measure their cost). */
  readonly fuel?: boolean;
  /** Compute each function of no arguments once per evaluation (default on; off only to measure it, see memo.ts). */
  readonly memoize?: boolean;
  /** Receives the wall time of each phase (`toolgate build --timings`). */
  readonly onPhase?: (phase: EmitPhase, ms: number) => void;
}

/** Reading runtime.wasm, adding the generated code and data, validating, optimising, encoding. */
export type EmitPhase = "runtime" | "generate" | "validate" | "optimize" | "binary";

export class EmitError extends Error {
  override name = "EmitError";
}
export function isEmitError(e: unknown): e is EmitError {
  return e instanceof Error && e.name === "EmitError";
}

const i32 = binaryen.i32;
const NOW_GLOBAL = "tg_now_ns";

export function emitPolicy(policy: Policy, opts: EmitOptions = {}): Uint8Array {
  const t0 = performance.now();
  const m = readRuntime();
  opts.onPhase?.("runtime", performance.now() - t0);
  try {
    return build(m, policy, opts);
  } finally {
    m.dispose();
  }
}

function build(m: binaryen.Module, policy: Policy, opts: EmitOptions): Uint8Array {
  let t = performance.now();
  const phase = (name: EmitPhase): void => {
    const now = performance.now();
    opts.onPhase?.(name, now - t);
    t = now;
  };
  const data = new StaticData(staticDataStart(m));
  const coverage = policy.coveragePoints ?? 0;
  const coverageAt = coverage > 0 ? data.zeros(coverage) : 0;
  const builtins = builtinTable(opts.customBuiltins);
  const funcNames = new Set(policy.funcs.map((f) => f.name));
  const hostIds = new Map<string, number>();
  const hostImports = new Map<number, string>();
  const rtCache = new Map<string, string>();
  let usesNow = false;
  let println: string | undefined;
  const printlnImport = (): string => {
    if (println === undefined) {
      println = HOST_IMPORTS.println;
      m.addFunctionImport(println, HOST_IMPORT_MODULE, HOST_IMPORTS.println, i32, binaryen.none);
    }
    return println;
  };
  const sdkNames = new Set<string>();
  const fuel = opts.fuel === false ? null : new Fuel({
    m,
    cstring: (s) => data.cstring(s),
    file: (i) => policy.static.files[i] ?? "unknown",
    runtimeError: exportedName(m, RT.runtimeError),
  });
  const memo = opts.memoize === false ? null : new Memo(m, data, policy.funcs);
  const entrypoints = inputPaths(policy);
  const env: EmitEnv = {
    memberPosition: memberPositions(entrypoints),
    fuel,
    fuelBuiltins: new FuelBuiltins(m),
    memo,
    m,
    data,
    strings: policy.static.strings,
    files: policy.static.files,
    consts: policy.static.consts ?? [],
    strict: opts.strictBuiltinErrors === true,
    rt(name) {
      let n = rtCache.get(name);
      if (n === undefined) {
        n = exportedName(m, name);
        rtCache.set(name, n);
      }
      return n;
    },
    callee(name) {
      if (funcNames.has(name)) return { kind: "func", name };
      const b = builtins.get(name);
      if (b === undefined) throw new EmitError(`no implementation of builtin ${name}`);
      if (b.kind === "native") return { kind: "native", name: env.rt(b.exportName) };
      if (b.kind === "print") return { kind: "print", format: env.rt(b.exportName), println: printlnImport() };
      let id = hostIds.get(name);
      if (id === undefined) {
        id = hostIds.size;
        hostIds.set(name, id);
        if (b.kind === "sdk") sdkNames.add(name);
      }
      return { kind: "host", id, arity: b.arity, located: b.custom === true, exact: b.exact === true };
    },
    coverageBase() {
      return coverageAt;
    },
    nowGlobal() {
      if (!usesNow) m.addGlobal(NOW_GLOBAL, i32, true, m.i32.const(0));
      usesNow = true;
      return NOW_GLOBAL;
    },
    hostImport(arity) {
      let n = hostImports.get(arity);
      if (n === undefined) {
        n = hostBuiltinImport(arity);
        m.addFunctionImport(n, HOST_IMPORT_MODULE, n, binaryen.createType(Array(arity + 2).fill(i32)), i32);
        hostImports.set(arity, n);
      }
      return n;
    },
  };

  const checked = functionsNeedingEntryCheck(policy.funcs);
  for (const f of policy.funcs) addFunc(env, f, checked.has(f.name));
  const planNames = policy.plans.map((p, i) => addPlan(env, p, i));

  // toolgate.eval(ctx, entrypoint, input, data) -> result set
  const abort = importedFunction(m, HOST_IMPORT_MODULE, HOST_IMPORTS.abort);
  if (abort === undefined) throw new EmitError(`runtime.wasm does not import ${HOST_IMPORT_MODULE}.${HOST_IMPORTS.abort}`);
  // What every evaluation starts with (fresh nodes per call: a node is used once).
  const evalStart = (): binaryen.ExpressionRef[] => {
    const start: binaryen.ExpressionRef[] = [];
    if (opts.strictBuiltinErrors === true) start.push(m.global.set(exportedName(m, TOOLGATE_HOST_EXPORTS.strictBuiltinErrors), m.i32.const(1)));
    if (usesNow) start.push(m.global.set(NOW_GLOBAL, m.i32.const(0)));
    if (memo !== null) start.push(memo.reset());
    return start;
  };
  const valuePlans = policy.plans.map((p, i) => (p.ruleResult === undefined ? null : addPlanValue(env, p, p.ruleResult, i)));
  const dispatch: binaryen.ExpressionRef[] = evalStart();
  planNames.forEach((name, id) => {
    dispatch.push(
      m.if(m.i32.eq(m.local.get(1, i32), m.i32.const(id)), m.return(m.call(name, [m.local.get(2, i32), m.local.get(3, i32)], i32))),
    );
  });
  dispatch.push(m.call(abort, [m.i32.const(data.cstring("internal: illegal entrypoint id"))], binaryen.none), m.unreachable());
  const evalFunction = replaceImport(m, "eval", [], m.block(null, dispatch));
  addDecisionExport(env, evalFunction, valuePlans, evalStart);

  // Probe every host builtin at load time (the SDK calls entrypoints() in its
  // constructor), so a module fails in loadPolicy when the host lacks one.
  const probes = [...hostIds].filter(([n]) => !sdkNames.has(n)).map(([, id]) => m.drop(m.call(env.hostImport(0), [m.i32.const(id), m.i32.const(0)], i32)));
  replaceImport(m, "entrypoints", [i32], nameMap(env, policy.plans.map((p, i) => [p.name, i]), probes));
  const strict = opts.strictBuiltinErrors === true;
  replaceImport(m, "builtins", [i32], nameMap(env, [...hostIds].map(([n, id]) => [sdkNames.has(n) ? n : hostBuiltinName(n, strict), id])));

  if (coverage > 0) {
    // One byte per coverage point; the caller reads and clears them (toolgate test --coverage).
    m.addFunction(MODULE_EXPORTS.coveragePtr, binaryen.none, i32, [], m.i32.const(coverageAt));
    m.addFunctionExport(MODULE_EXPORTS.coveragePtr, MODULE_EXPORTS.coveragePtr);
  }
  // The input each entrypoint can read, for hosts that write only that, with the static
  // string cell of every member name (a host that uses these cells as keys makes the
  // runtime's key compare a pointer compare). The SDK ignores custom sections.
  const keys = Object.fromEntries(memberNames(entrypoints).map((k) => [k, data.string(k)]));
  const section: InputPathsSectionJson = { version: 1, entrypoints, keys };
  m.addCustomSection(SECTIONS.inputPaths, new TextEncoder().encode(JSON.stringify(section)));
  if (fuel !== null) m.addCustomSection(SECTIONS.fuel, new TextEncoder().encode(JSON.stringify(fuel.section())));
  appendStaticData(m, data.blob());
  // The same paths in memory, for the runtime's projected input parse (opa_eval). A runtime
  // library without `tg_input_paths` (one built before the projected parse, as a benchmark
  // baseline links) parses the whole input and gets no table.
  if (runtimeHasGlobal(m, RT.inputPaths)) {
    const pathsAt = staticDataStart(m);
    appendStaticData(m, inputPathsTable(policy.plans.map((p) => p.name), entrypoints, (k) => keys[k]!, pathsAt));
    setGlobalInit(m, RT.inputPaths, m.i32.const(pathsAt));
  }
  finishHeapBase(m);
  if (opts.legacyAbi === true) setGlobalInit(m, SDK_EXPORTS.abiMinorVersion, m.i32.const(1));

  phase("generate");
  // Spliced with the pre-optimised runtime at binary level; binaryen only on request.
  const linked = linkModule(m);
  phase("binary");
  const invalid = validationError(linked.bytes);
  if (invalid !== null) throw new EmitError(`generated module does not validate: ${invalid}`);
  phase("validate");
  const bytes = opts.optimize === true ? optimizeGenerated(linked) : linked.bytes;
  phase("optimize");
  return bytes;
}

function memberNames(trees: Record<string, InputPaths>): string[] {
  const names = new Set<string>();
  const visit = (t: InputPaths): void => {
    if (t === true) return;
    for (const [k, c] of Object.entries(t)) {
      names.add(k);
      visit(c);
    }
  };
  Object.values(trees).forEach(visit);
  return [...names].sort();
}

function addFunc(env: EmitEnv, f: Func, entryCheck: boolean): void {
  const count = localCount(f.blocks, Math.max(f.return, ...f.params) + 1);
  const slot = env.memo?.slot(f.name) ?? null;
  const fe = new FuncEmitter(env, count, null, slot);
  // A memo hit is answered before the entry check: it does constant work, which its caller pays for.
  const body = [...(slot === null ? [] : [env.memo!.lookup(slot)]), ...fe.entryTick(f.blocks, entryCheck), ...fe.blocks(f.blocks)];
  body.push(fe.returnLocal(f.return));
  finish(env, f.name, f.params.length, fe, body);
}

function addPlan(env: EmitEnv, p: Plan, id: number): string {
  const count = localCount(p.blocks, 2);
  const rs = count;
  const fe = new FuncEmitter(env, count + 1, rs);
  const m = env.m;
  const refuel = env.fuel === null ? [] : [env.fuel.reset()];
  const body = [...refuel, m.local.set(rs, m.call(env.rt(RT.set), [], i32)), ...fe.blocks(p.blocks), m.return(m.local.get(rs, i32))];
  const name = `plan.${id}`;
  finish(env, name, 2, fe, body);
  return name;
}

/** The plan lowered to return its rule's value, for the decision export (no result set, no wrapper). */
function addPlanValue(env: EmitEnv, p: Plan, rule: RuleResult, id: number): string {
  const count = localCount(p.blocks, 2);
  const out = count;
  const fe = new FuncEmitter(env, count + 1, null, null, { rule, out });
  const m = env.m;
  const refuel = env.fuel === null ? [] : [env.fuel.reset()];
  const body = [...refuel, ...fe.blocks(p.blocks), m.return(m.local.get(out, i32))];
  const name = `plan.${id}.value`;
  finish(env, name, 2, fe, body);
  return name;
}

function finish(env: EmitEnv, name: string, params: number, fe: FuncEmitter, body: binaryen.ExpressionRef[]): void {
  const vars = Array<binaryen.Type>(Math.max(0, fe.totalLocals - params)).fill(i32);
  env.m.addFunction(name, binaryen.createType(Array(params).fill(i32)), i32, vars, env.m.block(null, body, i32));
}

/** Highest IR local used anywhere in `blocks`, plus one. */
function localCount(blocks: readonly import("../../plan/ir.js").Block[], min: number): number {
  let max = min - 1;
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (v === null || typeof v !== "object") return;
    const type = (v as { type?: unknown }).type;
    const literal = type === "MakeNumberIntStmt" || type === "AssignIntStmt";
    for (const [k, x] of Object.entries(v)) {
      if (literal && k === "value") continue;
      if (typeof x === "number" && ["target", "source", "key", "value", "result", "local", "array", "object", "set", "a", "b"].includes(k)) {
        max = Math.max(max, x);
      } else if (k !== "loc") visit(x);
    }
  };
  visit(blocks);
  return max + 1;
}

/** A function body building `{name: id, ...}` from static cells. */
function nameMap(env: EmitEnv, entries: readonly (readonly [string, number])[], before: binaryen.ExpressionRef[] = []): binaryen.ExpressionRef {
  const m = env.m;
  const obj = 0;
  const parts = [...before, m.local.set(obj, m.call(env.rt(RT.object), [], i32))];
  for (const [name, id] of entries) {
    parts.push(
      m.call(env.rt(RT.objectInsert), [m.local.get(obj, i32), m.i32.const(env.data.string(name)), m.i32.const(env.data.int(id))], binaryen.none),
    );
  }
  parts.push(m.local.get(obj, i32));
  return m.block(null, parts, i32);
}
