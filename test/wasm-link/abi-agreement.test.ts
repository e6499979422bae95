/**
 * The ABI module (src/policy/abi.ts) is what the runtime library, the emitter and both
 * engines agree on: every export name it lists is exported by runtime.wasm and, for the
 * names hosts call, by a linked policy module; the module's imports are the ones it
 * lists; the runtime writes the value tags it lists; the emitter writes the custom
 * sections it names in the shapes it declares; the decision scalar of a built module
 * decodes (decodeDecision) to the decision the policy spells out and round-trips through
 * decisionScalar; the fast engine finds every export it needs; and no source of the
 * emitter, the engines, the compiler or the policy test runner spells an ABI name as a
 * bare string literal of its own.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { keepWholeRuntime } from "../../codegen/wasm/link/index.js";
import { runtimeBytes } from "../../codegen/wasm/link/runtime-bytes.js";
import { runtimeLibrary } from "../../codegen/wasm/link/runtime-library.js";
import {
  CODE_EXPORTS, decisionScalar, decodeDecision, F_UNSORTED, HOST_BUILTIN_MAX_ARITY, HOST_IMPORT_MODULE, HOST_IMPORTS, hostBuiltinImport, MODULE_EXPORTS,
  N_BIG, N_FLOAT, N_INT, OPA_ABI_EXPORTS, RUNTIME_IMPORT_MODULE, RUNTIME_IMPORTS, SDK_EXPORTS, SECTIONS, T_ARRAY, T_BOOLEAN, T_NULL, T_NUMBER, T_OBJECT,
  T_SET, T_STRING, TOOLGATE_HOST_EXPORTS,
} from "../../src/policy/abi.js";
import type { FuelSection, InputPathsSectionJson } from "../../src/policy/abi.js";
import { FastPolicy } from "../../src/policy/fast-engine.js";

const root = join(import.meta.dirname, "..", "..");
const HOST_NAMES = [...Object.values(SDK_EXPORTS), ...Object.values(OPA_ABI_EXPORTS), ...Object.values(TOOLGATE_HOST_EXPORTS)];
const ALL_RUNTIME_NAMES = [...HOST_NAMES, ...Object.values(CODE_EXPORTS)];

const DECISION_POLICY = `package d
import rego.v1

default mode := "none"
mode := input.mode

allow_ask := {"allow": true, "reason": "r_allow", "requires_approval": false} if mode == "allow"
allow_ask := {"allow": false, "reason": "r_ask", "requires_approval": true} if mode == "ask"
allow_ask := {"allow": false, "reason": "r_deny", "requires_approval": false} if mode == "deny"
allow_ask := {"allow": true, "reason": "r_both", "requires_approval": true} if mode == "both"
allow_ask := {"allow": "yes", "reason": "r", "requires_approval": false} if mode == "malformed"
`;

function build(source: string, entrypoints: string[], opts: { coverage?: boolean } = {}): Uint8Array {
  const r = compilePolicy({ modules: [{ file: "p.rego", source }], entrypoints, ...opts });
  expect(r.errors).toEqual([]);
  return r.wasm!;
}

type Fn = (...args: number[]) => number;

/** An instance of `wasm` with the imports the ABI names (builtins fail: the policies here call none). */
async function instantiate(wasm: Uint8Array): Promise<{ ex: Record<string, Fn>; memory: WebAssembly.Memory }> {
  const memory = new WebAssembly.Memory({ initial: 5 });
  const fail = (): never => {
    throw new Error("unexpected import call");
  };
  const env: Record<string, unknown> = { [HOST_IMPORTS.memory]: memory, [HOST_IMPORTS.abort]: fail, [HOST_IMPORTS.println]: fail };
  for (let arity = 0; arity <= HOST_BUILTIN_MAX_ARITY; arity++) env[hostBuiltinImport(arity)] = fail;
  const instance = await WebAssembly.instantiate(new WebAssembly.Module(wasm as Uint8Array<ArrayBuffer>), { [HOST_IMPORT_MODULE]: env as WebAssembly.ModuleImports });
  return { ex: instance.exports as unknown as Record<string, Fn>, memory };
}

function parse(ex: Record<string, Fn>, memory: WebAssembly.Memory, json: string): number {
  const bytes = new TextEncoder().encode(json);
  const at = ex[SDK_EXPORTS.malloc]!(bytes.length);
  new Uint8Array(memory.buffer).set(bytes, at);
  const v = ex[SDK_EXPORTS.jsonParse]!(at, bytes.length);
  expect(v, json).not.toBe(0);
  return v;
}

function dump(ex: Record<string, Fn>, memory: WebAssembly.Memory, cell: number): unknown {
  const u8 = new Uint8Array(memory.buffer);
  const at = ex[SDK_EXPORTS.jsonDump]!(cell);
  return JSON.parse(new TextDecoder().decode(u8.subarray(at, u8.indexOf(0, at))));
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) continue;
    if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

describe("the ABI module agrees with the runtime, the emitter and the engines", () => {
  const runtime = runtimeLibrary(runtimeBytes());

  it("every export name of the ABI is exported by runtime.wasm, and the runtime imports exactly the ABI's", () => {
    const exported = new Set(runtime.exports.map((e) => e.name));
    for (const name of ALL_RUNTIME_NAMES) expect(exported, name).toContain(name);
    const toolgateImports = runtime.imports.filter((i) => i.module === RUNTIME_IMPORT_MODULE).map((i) => i.base).sort();
    expect(toolgateImports).toEqual([...RUNTIME_IMPORTS].sort());
    const hostImports = new Set<string>([...Object.values(HOST_IMPORTS), ...Array.from({ length: HOST_BUILTIN_MAX_ARITY + 1 }, (_, a) => hostBuiltinImport(a))]);
    for (const i of runtime.imports.filter((x) => x.module !== RUNTIME_IMPORT_MODULE)) {
      expect(i.module).toBe(HOST_IMPORT_MODULE);
      expect(hostImports, i.base).toContain(i.base);
    }
  });

  it("a linked module exports every name hosts call and the emitter's own exports, and imports only what the ABI lists", async () => {
    const wasm = build(DECISION_POLICY, ["d/allow_ask"], { coverage: true });
    const linked = runtimeLibrary(new Uint8Array(wasm));
    const exported = new Set(linked.exports.map((e) => e.name));
    for (const name of [...HOST_NAMES, ...Object.values(MODULE_EXPORTS)]) expect(exported, name).toContain(name);
    for (const i of linked.imports) expect(i.module).toBe(HOST_IMPORT_MODULE);
    // The module instantiates with exactly the ABI's host imports.
    const { ex } = await instantiate(wasm);
    expect(typeof ex[MODULE_EXPORTS.decision]).toBe("function");
  });

  it("the fast engine finds every export it needs in a built module", async () => {
    const policy = await FastPolicy.load(build(DECISION_POLICY, ["d/allow_ask"]));
    expect(policy.writesValuesDirectly).toBe(true);
    expect(policy.hasDecisionExport).toBe(true);
    expect(policy.fuel).not.toBeNull();
    expect(policy.strictErrors).not.toBeNull();
    expect(policy.projects(policy.entrypoints["d/allow_ask"]!)).toBe(true);
  });

  it("the runtime writes the value tags, number representations and unsorted flag the ABI lists", async () => {
    keepWholeRuntime(true);
    let wasm: Uint8Array;
    try {
      wasm = build("package t\nx := 1\n", ["t/x"]);
    } finally {
      keepWholeRuntime(false);
    }
    const { ex, memory } = await instantiate(wasm);
    const u8 = (): Uint8Array => new Uint8Array(memory.buffer);
    const tag = (json: string): [number, number] => {
      const cell = parse(ex, memory, json);
      return [u8()[cell]!, u8()[cell + 1]!];
    };
    expect(tag("null")[0]).toBe(T_NULL);
    expect(tag("true")[0]).toBe(T_BOOLEAN);
    expect(tag("7")).toEqual([T_NUMBER, N_INT]);
    expect(tag("1.5")).toEqual([T_NUMBER, N_FLOAT]);
    expect(tag("123456789012345678901234567890")).toEqual([T_NUMBER, N_BIG]);
    expect(tag('"s"')[0]).toBe(T_STRING);
    expect(tag("[]")[0]).toBe(T_ARRAY);
    expect(tag("{}")[0]).toBe(T_OBJECT);
    expect(u8()[ex[CODE_EXPORTS.set]!()]).toBe(T_SET);
    // Keys added out of order to a collection large enough for a hash index are appended and flagged.
    const obj = ex[CODE_EXPORTS.object]!();
    for (let i = 99; i >= 0; i--) ex[CODE_EXPORTS.objectInsert]!(obj, parse(ex, memory, `"k${i}"`), parse(ex, memory, "1"));
    expect(u8()[obj + 1]! & F_UNSORTED).toBe(F_UNSORTED);
  });

  it("the decision scalar of a built module decodes to the policy's decision and round-trips through decisionScalar", async () => {
    const { ex, memory } = await instantiate(build(DECISION_POLICY, ["d/allow_ask"]));
    const data = parse(ex, memory, "{}");
    const mark = ex[SDK_EXPORTS.heapPtrGet]!();
    const decide = (mode: string): number => {
      ex[SDK_EXPORTS.heapPtrSet]!(mark);
      return ex[MODULE_EXPORTS.decision]!(0, parse(ex, memory, JSON.stringify({ mode })), data);
    };
    const cases: [string, boolean, boolean, string][] = [["allow", true, false, "r_allow"], ["ask", false, true, "r_ask"], ["deny", false, false, "r_deny"], ["both", true, true, "r_both"]];
    for (const [mode, allow, requiresApproval, reason] of cases) {
      const r = decide(mode);
      const d = decodeDecision(r);
      expect(d.kind, mode).toBe("decision");
      if (d.kind !== "decision") continue;
      expect([d.allow, d.requiresApproval]).toEqual([allow, requiresApproval]);
      expect(dump(ex, memory, d.reasonCell)).toBe(reason);
      expect(decisionScalar(d.allow, d.requiresApproval, d.reasonCell)).toBe(r);
    }
    expect(decodeDecision(decide("none"))).toEqual({ kind: "undefined" });
    expect(decodeDecision(decide("malformed"))).toEqual({ kind: "malformed" });
  });

  it("a built module carries the custom sections the ABI names, in the shapes it declares", () => {
    const module = new WebAssembly.Module(build(DECISION_POLICY, ["d/allow_ask"]) as Uint8Array<ArrayBuffer>);
    const section = (name: string): unknown => {
      const found = WebAssembly.Module.customSections(module, name);
      expect(found, name).toHaveLength(1);
      return JSON.parse(new TextDecoder().decode(found[0]));
    };
    const paths = section(SECTIONS.inputPaths) as InputPathsSectionJson;
    expect(paths.version).toBe(1);
    expect(paths.entrypoints["d/allow_ask"]).toEqual({ mode: true });
    expect(Number.isInteger(paths.keys["mode"])).toBe(true);
    const fuel = section(SECTIONS.fuel) as FuelSection;
    expect(fuel.version).toBe(1);
    expect(Object.keys(fuel.checks).sort()).toEqual(["builtin", "entry", "scan"]);
    expect(Object.keys(fuel.functions).sort()).toEqual(["checked", "unchecked"]);
  });

  it("no source of the emitter, the engines, the compiler or the policy test runner spells an ABI name as a string literal of its own", () => {
    const names = [
      ...ALL_RUNTIME_NAMES.filter((n) => n.includes("_")),
      ...Object.values(MODULE_EXPORTS), ...Object.values(SECTIONS), ...Object.values(HOST_IMPORTS).filter((n) => n.includes("_")),
      hostBuiltinImport(0),
    ];
    const dirs = ["src/policy", "codegen/wasm", "codegen/wasm/emit", "codegen/wasm/link", "codegen/compiler", "codegen/policytest"];
    const copies: string[] = [];
    for (const file of dirs.flatMap((d) => sourceFiles(join(root, d)))) {
      const rel = relative(root, file);
      if (rel === "src/policy/abi.ts") continue;
      const text = readFileSync(file, "utf8");
      for (const name of names) if (text.includes(`"${name}"`) || text.includes(`'${name}'`)) copies.push(`${rel}: "${name}"`);
    }
    expect(copies).toEqual([]);
  });
});
