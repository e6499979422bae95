/**
 * toolgate's fast policy host and the runtime's default engine: the same
 * PolicyEngine contract as the SDK engine (opa-wasm-engine.ts), calling the
 * module's exports directly. Per decision it does what the SDK's evaluate() does
 * minus the repeated work:
 *  - the input goes into memory as value cells written by the host (fast-input.ts:
 *    no JSON.stringify, no JSON parse in the module; checked against the module's
 *    own parser at load), and only the parts the entrypoint can read
 *    (input-projection.ts, from the module's `toolgate.input_paths` section), with
 *    member-name cells made once at load;
 *  - `toolgate_decision` returns the decision as one scalar (allow, requires_approval
 *    and the reason's string cell; reasons spelled out in the policy are static cells,
 *    decoded once and kept by address): no result set is dumped or parsed. Modules
 *    without that export take the legacy `eval(ctx)` and read the result set;
 *  - inputs the writer declines (floats, unusual strings) take the SDK's route
 *    with less overhead: one reused TextEncoder `encodeInto`s the JSON straight at
 *    the saved heap pointer and `opa_eval` parses it;
 *  - the NUL-terminated result is decoded from a cached view of memory.
 * Data is loaded once. Host builtins are dispatched to `src/policy/host-builtins`
 * with the SDK's exact JSON round trip, so both engines decide identically.
 */
import type { CustomBuiltins } from "./builtins/index.js";
import { createHostBuiltins } from "./host-builtins/index.js";
import type { HostBuiltinFn, HostBuiltinSet } from "./host-builtins/index.js";
import type { JsonObject } from "../manifest.js";
import { BUDGET_EXCEEDED, checkPolicyBudget, DEFAULT_POLICY_BUDGET, moduleFuel } from "./budget.js";
import type { ModuleFuel } from "./budget.js";
import { checkPolicyDeadline, DEFAULT_POLICY_DEADLINE_MS, isHostBudgetExceeded } from "./host-meter.js";
import { evaluationErrorText, moduleStrictErrors, NO_STRICT_SWITCH } from "./strict-errors.js";
import type { ModuleStrictErrors } from "./strict-errors.js";
import { deny, toDecision } from "./engine.js";
import type { EvaluateOptions, PolicyDecision, PolicyEngine, PolicyInput } from "./engine.js";
import { DECLINED, ValueReader, ValueWriter } from "./fast-input.js";
import { projectInput, projectionSample, readInputPaths } from "./input-projection.js";
import type { ProjectedObject } from "./input-projection.js";
import { compileProjection } from "./projected-writer.js";
import { buildTemplate, templateBytes } from "./input-template.js";
import type { InputTemplate } from "./input-template.js";
import { PolicyLoadError } from "./opa-wasm-engine.js";
import { DECISION, HOST_BUILTIN_MAX_ARITY, HOST_IMPORTS, hostBuiltinImport, MODULE_EXPORTS, SDK_EXPORTS, TOOLGATE_HOST_EXPORTS } from "./abi.js";
import { policyCodeVersion, policyDataVersion, policyVersion } from "./version.js";

export interface FastEngineOptions {
  readonly wasm: Uint8Array;
  /** Entrypoint as a rule path with slashes, e.g. "toolgate/authz/decision". */
  readonly entrypoint: string;
  readonly data?: JsonObject;
  /** Initial memory pages (the SDK's default is 5). */
  readonly initialPages?: number;
  /** Custom builtins the policy was compiled with (`defineBuiltins`, tools.yaml `policy.builtins`). */
  readonly builtins?: CustomBuiltins;
  /** Steps per evaluation unless `evaluate` is given one (default DEFAULT_POLICY_BUDGET; see budget.ts). */
  readonly budget?: number;
  /** Wall-clock milliseconds per evaluation unless `evaluate` is given one (default DEFAULT_POLICY_DEADLINE_MS; host-meter.ts). */
  readonly deadlineMs?: number;
  /** Builtin errors deny with `policy_evaluation_error` unless `evaluate` says otherwise (default false; strict-errors.ts). */
  readonly strictBuiltinErrors?: boolean;
}

/** The module's exports the engine calls, by the ABI's names (abi.ts). */
interface Exports {
  readonly malloc: (n: number) => number;
  readonly jsonParse: (addr: number, len: number) => number;
  readonly jsonDump: (value: number) => number;
  readonly heapPtrGet: () => number;
  readonly heapPtrSet: (p: number) => void;
  readonly opaEval: (r: number, ep: number, data: number, input: number, len: number, heap: number, fmt: number) => number;
  readonly builtins: () => number;
  readonly entrypoints: () => number;
  // The legacy entry and the shared cells, used by the direct input writer.
  readonly eval: ((ctx: number) => number) | undefined;
  readonly nullCell: (() => number) | undefined;
  readonly booleanCell: ((b: number) => number) | undefined;
  /** (entrypoint, input, data) -> the decision scalar (abi.ts DECISION). */
  readonly decision: ((entrypoint: number, input: number, data: number) => number) | undefined;
}

function bindExports(ex: WebAssembly.Exports): Exports {
  type Fn = (...args: number[]) => number;
  const fn = (name: string): Fn => ex[name] as Fn;
  const optional = (name: string): Fn | undefined => (typeof ex[name] === "function" ? (ex[name] as Fn) : undefined);
  return {
    malloc: fn(SDK_EXPORTS.malloc),
    jsonParse: fn(SDK_EXPORTS.jsonParse),
    jsonDump: fn(SDK_EXPORTS.jsonDump),
    heapPtrGet: fn(SDK_EXPORTS.heapPtrGet),
    heapPtrSet: fn(SDK_EXPORTS.heapPtrSet),
    opaEval: fn(SDK_EXPORTS.opaEval),
    builtins: fn(SDK_EXPORTS.builtins),
    entrypoints: fn(SDK_EXPORTS.entrypoints),
    eval: optional(SDK_EXPORTS.eval),
    nullCell: optional(TOOLGATE_HOST_EXPORTS.nullCell),
    booleanCell: optional(TOOLGATE_HOST_EXPORTS.booleanCell),
    decision: optional(MODULE_EXPORTS.decision),
  };
}

/** Checked at load: the writer must build what the module's parser builds. */
const PROBE = { b: [1, -2, 4294967297, -9007199254740991, true, false, null, "", "xé😀"], a: { "": {}, z: [] }, "é": "k" };

const PAGE = 65536;
const STRING_CACHE_BYTES = 64 * 1024;
const KEY_CACHE_BYTES = 16 * 1024;
/** Key-cell room granted on demand above the data (for wide objects that recur), in all until setData. */
const GRANTED_KEY_BYTES_MAX = 4 * 1024 * 1024;
/** Entries of the reason table (a power of two); cells are 8-aligned, so the slot is taken from the bits above. */
const REASON_SLOTS = 256;

export class FastPolicy {
  private readonly memory: WebAssembly.Memory;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  private u8: Uint8Array;
  /** Memory from the saved heap pointer on, where each input is written. */
  private inputView: Uint8Array;
  private exports!: Exports;
  /** The exports called on every decision, read once instead of from the exports object per call. */
  private decisionExport: Exports["decision"];
  private setHeapPtr!: (p: number) => void;
  private dataAddr = 0;
  private dataHeapPtr = 0;
  private baseHeapPtr = 0;
  private builtinNames: string[] = [];
  /** Bytes of key-cell room granted to the writer since the data was set. */
  private grantedKeyBytes = 0;
  entrypoints: Record<string, number> = {};
  /** Null when the module lacks what direct writing needs or fails the load-time check. */
  private writer: ValueWriter | null = null;
  private reader: ValueReader | null = null;
  /** By entrypoint id: the parts of the input to write (null: all of it). */
  private projections: (ProjectedObject | null)[] = [];
  /** By entrypoint id: the projection's pre-encoded input (null: none, the projected writer writes it all). */
  private templates: (InputTemplate | null)[] = [];
  /**
   * Reason strings by cell address, for cells below the saved heap pointer (immutable until
   * setData): a direct-mapped table (slot by address bits; a collision replaces the entry),
   * a few array reads per decision where a Map lookup is a builtin call.
   */
  private readonly reasonCells = new Uint32Array(REASON_SLOTS);
  private readonly reasonTexts: string[] = new Array<string>(REASON_SLOTS).fill("");
  /** The module's step counter (budget.ts), null for modules built without one. */
  fuel: ModuleFuel | null = null;
  /** The module's strict-errors switch (strict-errors.ts), null for modules without one. */
  strictErrors: ModuleStrictErrors | null = null;
  private limitedBudget = Number.NaN;
  private limitedDeadline = Number.NaN;
  private strictOn = false;

  private constructor(
    initialPages: number,
    private readonly host: HostBuiltinSet,
    private readonly compileWriters: boolean,
    private readonly useTemplates: boolean,
  ) {
    this.memory = new WebAssembly.Memory({ initial: initialPages });
    this.u8 = new Uint8Array(this.memory.buffer);
    this.inputView = this.u8;
  }

  /** `host` defaults to toolgate's host builtins (createHostBuiltins). */
  /**
   * `compileWriters: false` keeps the interpreted input writer (as where code generation is forbidden);
   * `templates: false` writes every input with the projected writer (no input template).
   */
  static async load(wasm: Uint8Array, opts: { initialPages?: number; host?: HostBuiltinSet; compileWriters?: boolean; templates?: boolean } = {}): Promise<FastPolicy> {
    const p = new FastPolicy(opts.initialPages ?? 5, opts.host ?? createHostBuiltins(), opts.compileWriters ?? true, opts.templates ?? true);
    const module = await WebAssembly.compile(wasm as Uint8Array<ArrayBuffer>);
    const instance = await WebAssembly.instantiate(module, { env: p.imports() as WebAssembly.ModuleImports });
    p.exports = bindExports(instance.exports);
    p.decisionExport = p.exports.decision;
    p.setHeapPtr = p.exports.heapPtrSet;
    p.fuel = moduleFuel(instance.exports);
    p.strictErrors = moduleStrictErrors(instance.exports);
    p.host.attach({ exports: instance.exports, memory: p.memory });
    p.init(module);
    return p;
  }

  private imports(): Record<string, unknown> {
    const imports: Record<string, unknown> = {
      [HOST_IMPORTS.memory]: this.memory,
      [HOST_IMPORTS.abort]: (addr: number): never => {
        throw new Error(this.cString(addr));
      },
      [HOST_IMPORTS.println]: (addr: number): void => console.log(this.cString(addr)),
    };
    // (id, ctx, ...operands): the module passes exactly `arity` operands.
    const builtin = (id: number, _ctx: number, ...args: number[]): number => this.builtinCall(id, args);
    for (let arity = 0; arity <= HOST_BUILTIN_MAX_ARITY; arity++) imports[hostBuiltinImport(arity)] = builtin;
    return imports;
  }

  private init(module: WebAssembly.Module): void {
    const builtins = this.dumpValue(this.exports.builtins()) as Record<string, number>;
    const missing = Object.keys(builtins).filter((n) => typeof this.host.builtins[n] !== "function");
    if (missing.length > 0) {
      throw new PolicyLoadError(`policy.wasm needs builtins this host does not provide: ${missing.sort().join(", ")}`);
    }
    for (const [name, id] of Object.entries(builtins)) this.builtinNames[id] = name;
    // As the SDK: empty data first, then entrypoints() (which probes the host builtins).
    this.dataAddr = this.loadJson(new TextEncoder().encode("{}"));
    this.entrypoints = this.dumpValue(this.exports.entrypoints()) as Record<string, number>;
    // Key cells of object shapes stay below the saved heap pointer, like data.
    const keyRegion = this.exports.malloc(KEY_CACHE_BYTES);
    this.baseHeapPtr = this.exports.heapPtrGet();
    this.dataHeapPtr = this.baseHeapPtr;
    this.writer = this.checkedWriter(keyRegion);
    this.reader = this.writer === null ? null : new ValueReader(this.memory);
    if (this.writer !== null) {
      this.projections = this.checkedProjections(module, this.writer);
      const region = this.exports.malloc(STRING_CACHE_BYTES);
      this.writer.cacheStrings(region, region + STRING_CACHE_BYTES);
    }
    // Member-name cells stay below the saved heap pointer, like data.
    this.baseHeapPtr = this.exports.heapPtrGet();
    this.dataHeapPtr = this.baseHeapPtr;
    this.inputView = this.view().subarray(this.dataHeapPtr);
  }

  /** Per entrypoint id; each projection must write what the module's parser builds, or that entrypoint gets the whole input. */
  private checkedProjections(module: WebAssembly.Module, writer: ValueWriter): (ProjectedObject | null)[] {
    const paths = readInputPaths(module);
    const out: (ProjectedObject | null)[] = [];
    if (paths === null) return out;
    // The module's own cell for a member name when it holds that name (checked), else a new one.
    const keyCell = (k: string): number => {
      const cell = paths.keys[k];
      if (cell !== undefined && cell < this.baseHeapPtr && this.cString(this.exports.jsonDump(cell)) === JSON.stringify(k)) return cell;
      return this.loadJson(this.encoder.encode(JSON.stringify(k)));
    };
    for (const [name, id] of Object.entries(this.entrypoints)) {
      const tree = paths.entrypoints[name];
      const node = tree === undefined ? null : projectInput(tree, keyCell);
      if (node === null) continue;
      if (this.compileWriters) compileProjection(node);
      const sample = projectionSample(node);
      if (!this.writesAsParsed(sample, (at) => writer.writeProjected(sample, node, at))) continue;
      out[id] = node;
      if (this.compileWriters && this.useTemplates) this.templates[id] = this.checkedTemplate(node, writer);
    }
    return out;
  }

  /**
   * The entrypoint's input template (input-template.ts) in memory kept below the
   * saved heap pointer, or null unless it writes what the module's parser builds for
   * samples of each leaf kind, also when written again over a previous call's values.
   */
  private checkedTemplate(node: ProjectedObject, writer: ValueWriter): InputTemplate | null {
    const bytes = templateBytes(node);
    const start = (this.exports.malloc(bytes + 8) + 7) & ~7;
    writer.sync();
    const template = buildTemplate(node, writer, start);
    if (template === null) return null;
    const samples = [
      projectionSample(node),
      projectionSample(node, (k) => `v-${k}`),
      projectionSample(node, (k) => k.length * 4294967297),
      projectionSample(node, (k) => `v-${k}`),
      projectionSample(node, (k) => `w-${k}-é`),
      projectionSample(node, (k) => `v-${k}`),
      projectionSample(node, () => true),
    ];
    for (const sample of samples) {
      if (!this.writesAsParsed(sample, (at) => writer.writeTemplate(sample, template, at))) return null;
    }
    return template;
  }

  /**
   * Whether `write` (at an 8-aligned heap address) builds what the module's JSON parser
   * builds for `sample`, compared by their dumps; the heap is reset afterwards.
   */
  private writesAsParsed(sample: unknown, write: (at: number) => { readonly addr: number; readonly end: number } | null): boolean {
    const mark = this.exports.heapPtrGet();
    const cells = write((mark + 7) & ~7);
    let same = false;
    if (cells !== null) {
      this.exports.heapPtrSet(cells.end);
      const direct = this.cString(this.exports.jsonDump(cells.addr));
      same = direct === this.cString(this.exports.jsonDump(this.loadJson(this.encoder.encode(JSON.stringify(sample)))));
    }
    this.exports.heapPtrSet(mark);
    return same;
  }

  private checkedWriter(keyRegion: number): ValueWriter | null {
    const ex = this.exports;
    if (ex.eval === undefined || ex.nullCell === undefined || ex.booleanCell === undefined) return null;
    const w = new ValueWriter(this.memory, { nullCell: ex.nullCell(), trueCell: ex.booleanCell(1), falseCell: ex.booleanCell(0) });
    // The probe below writes with the shapes' key cells and writers the engine uses.
    w.cacheKeys(keyRegion, keyRegion + KEY_CACHE_BYTES);
    w.compileShapes = this.compileWriters;
    const start = (this.exports.heapPtrGet() + 7) & ~7;
    const cells = w.write(PROBE, start);
    if (cells === null) return null;
    this.exports.heapPtrSet(cells.end);
    const direct = this.cString(ex.jsonDump(cells.addr));
    const text = new TextEncoder().encode(JSON.stringify(PROBE));
    const parsedAddr = this.loadJson(text);
    const parsed = this.cString(ex.jsonDump(parsedAddr));
    // The reader must give back what JSON.parse of the module's dump gives.
    const back = new ValueReader(this.memory).read(parsedAddr);
    this.exports.heapPtrSet(this.dataHeapPtr);
    return direct === parsed && JSON.stringify(back) === JSON.stringify(JSON.parse(parsed)) ? w : null;
  }

  /** Whether inputs go in as value cells (else as JSON text). */
  get writesValuesDirectly(): boolean {
    return this.writer !== null;
  }

  setData(data: unknown): void {
    // Granted key room lies above the base heap pointer: the data overwrites it.
    this.writer?.dropGrantedKeys();
    this.grantedKeyBytes = 0;
    this.exports.heapPtrSet(this.baseHeapPtr);
    this.dataAddr = this.loadJson(this.encoder.encode(JSON.stringify(data)));
    this.dataHeapPtr = this.exports.heapPtrGet();
    this.inputView = this.view().subarray(this.dataHeapPtr);
    this.reasonCells.fill(0);
  }

  /** Bytes of the module's memory (it grows when an input does not fit). */
  get memoryBytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Whether `decide` returns decisions through the module's decision export. */
  get hasDecisionExport(): boolean {
    return this.exports.decision !== undefined;
  }

  /** Whether the entrypoint's input is written in part (what it can read) rather than whole. */
  projects(entrypoint: number): boolean {
    return (this.projections[entrypoint] ?? null) !== null;
  }

  /** Whether the entrypoint's input is patched into a pre-encoded template (input-template.ts) where its shape allows. */
  usesTemplate(entrypoint: number): boolean {
    return (this.templates[entrypoint] ?? null) !== null;
  }

  /**
   * The budget (steps, host time included), the deadline and the error mode of the next
   * evaluations. Strict needs the module's switch (see strictErrors).
   */
  limit(budget: number, deadlineMs: number, strict: boolean): void {
    this.fuel?.set(budget);
    if (budget !== this.limitedBudget || deadlineMs !== this.limitedDeadline) {
      this.host.limit({ budget, deadlineMs, fuel: this.fuel });
      this.limitedBudget = budget;
      this.limitedDeadline = deadlineMs;
    }
    if (strict !== this.strictOn) {
      this.host.strictErrors(strict);
      this.strictOn = strict;
    }
    this.strictErrors?.set(strict);
  }

  /**
   * The decision of `entrypoint` as toDecision would make it of the SDK's result,
   * through the decision export (see hasDecisionExport; without it, evaluate()).
   * Throws what the module aborts with.
   */
  decide(input: unknown, entrypoint: number): PolicyDecision {
    const decision = this.decisionExport;
    if (decision === undefined) {
      const results = this.evaluate(input, entrypoint);
      if (!Array.isArray(results) || results.length !== 1) return deny("policy_undefined");
      return toDecision((results[0] as { result?: unknown }).result);
    }
    const inputAddr = input ? this.inputCells(input, entrypoint) : 0;
    this.startEvaluation();
    const r = decision(entrypoint, inputAddr, this.dataAddr);
    // decodeDecision (abi.ts), inline: no object per decision.
    if (r === DECISION.undefined) return deny("policy_undefined");
    if (r === DECISION.malformed) return deny("policy_malformed_decision");
    const allow = (r & DECISION.allow) !== 0;
    const ask = (r & DECISION.requiresApproval) !== 0;
    if (allow && ask) return deny("policy_malformed_decision");
    return { allow, reason: this.reason(r & ~DECISION.flags), requires_approval: ask };
  }

  /** The input's value, at the saved heap pointer; the heap pointer is left after it. */
  private inputCells(input: unknown, entrypoint: number): number {
    const writer = this.writer;
    if (writer !== null && writer.keyRoomWanted > 0) this.grantKeyRoom(writer);
    const start = (this.dataHeapPtr + 7) & ~7;
    const template = this.templates[entrypoint];
    if (writer !== null && template) {
      // Cell addresses are never 0 (0 is the module's "undefined").
      const addr = writer.templateCells(input, template, start);
      if (addr !== 0) {
        this.setHeapPtr(writer.end);
        return addr;
      }
    }
    const cells = writer === null || template ? null : writer.writeProjected(input, this.projections[entrypoint] ?? null, start);
    if (cells !== null) {
      this.setHeapPtr(cells.end);
      return cells.addr;
    }
    // The SDK's route for what the writer declines: JSON text, parsed by the module.
    const text = JSON.stringify(input) as string | undefined;
    if (text === undefined) throw new Error("input is not JSON");
    this.reserve(start + text.length * 3);
    const len = this.encoder.encodeInto(text, this.view().subarray(start)).written;
    this.exports.heapPtrSet((start + len + 7) & ~7);
    const addr = this.exports.jsonParse(start, len);
    if (addr === 0) throw new Error("input is not JSON");
    return addr;
  }

  private reason(cell: number): string {
    // Address 0 is never a reason cell, so an empty slot (0) matches nothing.
    const slot = (cell >>> 3) & (REASON_SLOTS - 1);
    if (this.reasonCells[slot] === cell) return this.reasonTexts[slot]!;
    // Without a checked writer the cell layout is not known to match: ask the module.
    if (this.reader === null) return this.dumpValue(cell) as string;
    const dv = new DataView(this.memory.buffer);
    const len = dv.getUint32(cell + 4, true);
    const ptr = dv.getUint32(cell + 8, true);
    const s = this.decoder.decode(this.view().subarray(ptr, ptr + len));
    if (cell < this.dataHeapPtr && !this.writer!.inStringCache(cell) && !this.inTemplate(cell)) {
      this.reasonCells[slot] = cell;
      this.reasonTexts[slot] = s;
    }
    return s;
  }

  /** Whether `addr` lies in an input template (its cells are rewritten by later calls). */
  private inTemplate(addr: number): boolean {
    for (const t of this.templates) if (t && addr >= t.start && addr < t.end) return true;
    return false;
  }

  /** The result set, as the SDK's evaluate() returns it. Throws what the module aborts with. */
  evaluate(input: unknown, entrypoint: number): unknown {
    let inputLen = 0;
    let inputAddr = 0;
    // The SDK passes a falsy input as "no input"; do the same.
    if (input && this.writer !== null) {
      if (this.writer.keyRoomWanted > 0) this.grantKeyRoom(this.writer);
      // Cells at the saved heap pointer, then a 16-byte ctx (+0 input, +4 data,
      // +8 result, +12 entrypoint), then the legacy eval: no JSON either way.
      const cells = this.writer.write(input, (this.dataHeapPtr + 7) & ~7);
      if (cells !== null) {
        const ctx = cells.end;
        this.exports.heapPtrSet(ctx + 16);
        const dv = new DataView(this.memory.buffer, ctx, 16);
        dv.setUint32(0, cells.addr, true);
        dv.setUint32(4, this.dataAddr, true);
        dv.setUint32(8, 0, true);
        dv.setInt32(12, entrypoint, true);
        this.startEvaluation();
        this.exports.eval!(ctx);
        const rs = new DataView(this.memory.buffer).getUint32(ctx + 8, true);
        if (rs === 0) return [];
        const value = this.reader!.read(rs);
        return value !== DECLINED ? value : JSON.parse(this.cString(this.exports.jsonDump(rs)));
      }
    }
    if (input) {
      const text = JSON.stringify(input);
      inputAddr = this.dataHeapPtr;
      this.reserve(inputAddr + text.length * 3);
      inputLen = this.encoder.encodeInto(text, this.inputView).written;
    }
    this.startEvaluation();
    // The heap starts after the input, or at the saved pointer when there is none.
    const ret = this.exports.opaEval(0, entrypoint, this.dataAddr, inputAddr, inputLen, this.dataHeapPtr + inputLen, 0);
    return JSON.parse(this.cString(ret));
  }

  /**
   * Room for the key cells the writer wants (ValueWriter.keyRoomWanted), taken at the saved
   * heap pointer and kept there like data until setData, within GRANTED_KEY_BYTES_MAX.
   */
  private grantKeyRoom(writer: ValueWriter): void {
    const bytes = writer.keyRoomWanted;
    if (this.grantedKeyBytes + bytes > GRANTED_KEY_BYTES_MAX) {
      writer.refuseKeyRoom();
      return;
    }
    this.exports.heapPtrSet(this.dataHeapPtr);
    const start = (this.exports.malloc(bytes + 8) + 7) & ~7;
    this.dataHeapPtr = this.exports.heapPtrGet();
    this.grantedKeyBytes += bytes + 8;
    this.inputView = this.view().subarray(this.dataHeapPtr);
    writer.sync();
    writer.grantKeyRoom(start, start + bytes);
  }

  /** Per-evaluation host state (the clock read once, seeded draws); a module that calls no host builtin has none. */
  private startEvaluation(): void {
    if (this.builtinNames.length > 0) this.host.startEvaluation();
  }

  private reserve(end: number): void {
    if (end > this.memory.buffer.byteLength) this.memory.grow(Math.ceil((end - this.memory.buffer.byteLength) / PAGE));
    if (this.inputView.buffer !== this.memory.buffer) this.inputView = this.view().subarray(this.dataHeapPtr);
  }

  private view(): Uint8Array {
    if (this.u8.length === 0) this.u8 = new Uint8Array(this.memory.buffer);
    return this.u8;
  }

  private cString(addr: number): string {
    const u8 = this.view();
    const end = u8.indexOf(0, addr);
    return this.decoder.decode(u8.subarray(addr, end < 0 ? u8.length : end));
  }

  private dumpValue(addr: number): unknown {
    return JSON.parse(this.cString(this.exports.jsonDump(addr)));
  }

  private loadJson(bytes: Uint8Array): number {
    const addr = this.exports.malloc(bytes.byteLength);
    this.view().set(bytes, addr);
    const v = this.exports.jsonParse(addr, bytes.byteLength);
    if (v === 0) throw new Error("failed to parse json value");
    return v;
  }

  /** The SDK's builtin round trip: dump operands to JSON, call, load the result back. */
  private builtinCall(id: number, args: number[]): number {
    const name = this.builtinNames[id] ?? `#${id}`;
    const fn: HostBuiltinFn | undefined = this.host.builtins[name];
    if (fn === undefined) throw new Error(`not implemented: built-in function ${id}: ${name}`);
    const result = fn(...args.map((a) => this.dumpValue(a)));
    if (result === undefined) return 0;
    return this.loadJson(result instanceof ArrayBuffer ? new Uint8Array(result) : this.encoder.encode(JSON.stringify(result)));
  }
}

/** A PolicyEngine over FastPolicy; same decisions and failure rules as loadOpaWasmEngine. */
export interface FastPolicyEngine extends PolicyEngine {
  /** The synchronous decision (what evaluate() resolves to). */
  decide(input: PolicyInput, options?: EvaluateOptions): PolicyDecision;
  readonly policy: FastPolicy;
  readonly entrypointId: number;
}

export async function loadFastEngine(opts: FastEngineOptions): Promise<FastPolicyEngine> {
  let policy: FastPolicy;
  try {
    policy = await FastPolicy.load(opts.wasm, {
      ...(opts.initialPages === undefined ? {} : { initialPages: opts.initialPages }),
      ...(opts.builtins === undefined ? {} : { host: createHostBuiltins({ builtins: opts.builtins }) }),
    });
  } catch (err) {
    if (err instanceof PolicyLoadError) throw err;
    throw new PolicyLoadError(`policy.wasm does not load: ${String(err)}`);
  }
  if (!Object.prototype.hasOwnProperty.call(policy.entrypoints, opts.entrypoint)) {
    throw new PolicyLoadError(`policy.wasm has no entrypoint "${opts.entrypoint}" (has: ${Object.keys(policy.entrypoints).join(", ")})`);
  }
  if (opts.data !== undefined) policy.setData(opts.data);
  const entrypointId = policy.entrypoints[opts.entrypoint]!;
  const budget = opts.budget === undefined ? DEFAULT_POLICY_BUDGET : checkPolicyBudget(opts.budget, "loadFastEngine");
  const deadline = opts.deadlineMs === undefined ? DEFAULT_POLICY_DEADLINE_MS : checkPolicyDeadline(opts.deadlineMs, "loadFastEngine");
  const strict = opts.strictBuiltinErrors === true;
  if (strict && policy.strictErrors === null) throw new PolicyLoadError(NO_STRICT_SWITCH);
  const decide = (input: PolicyInput, options?: EvaluateOptions): PolicyDecision => {
    const strictNow = options?.strictBuiltinErrors ?? strict;
    // Fail closed: a module that cannot report its builtin errors cannot be evaluated strictly.
    if (strictNow && policy.strictErrors === null) return deny("policy_evaluation_error", NO_STRICT_SWITCH);
    try {
      policy.limit(options?.budget ?? budget, options?.deadlineMs ?? deadline, strictNow);
      return policy.decide(input, entrypointId);
    } catch (err) {
      if (policy.fuel?.exceeded(err) === true || isHostBudgetExceeded(err)) return deny(BUDGET_EXCEEDED);
      return deny("policy_evaluation_error", evaluationErrorText(err));
    }
  };
  return {
    version: policyVersion(opts.wasm, opts.data),
    code_version: policyCodeVersion(opts.wasm),
    data_version: policyDataVersion(opts.data),
    policy,
    entrypointId,
    decide,
    evaluate: (input, options) => Promise.resolve(decide(input, options)),
  };
}
