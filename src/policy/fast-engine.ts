/**
 * toolgate's fast policy host: the same PolicyEngine contract as the SDK engine
 * (opa-wasm-engine.ts), calling the module's exports directly. Per decision it
 * does what the SDK's evaluate() does minus the repeated work:
 *  - the input goes into memory as value cells written by the host (fast-input.ts:
 *    no JSON.stringify, no JSON parse in the module; checked against the module's
 *    own parser at load), followed by the legacy `eval(ctx)`;
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
import { deny, toDecision } from "./engine.js";
import type { EvaluateOptions, PolicyDecision, PolicyEngine, PolicyInput } from "./engine.js";
import { DECLINED, ValueReader, ValueWriter } from "./fast-input.js";
import { PolicyLoadError } from "./opa-wasm-engine.js";
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
}

interface Exports {
  readonly opa_malloc: (n: number) => number;
  readonly opa_json_parse: (addr: number, len: number) => number;
  readonly opa_json_dump: (value: number) => number;
  readonly opa_heap_ptr_get: () => number;
  readonly opa_heap_ptr_set: (p: number) => void;
  readonly opa_eval: (r: number, ep: number, data: number, input: number, len: number, heap: number, fmt: number) => number;
  readonly builtins: () => number;
  readonly entrypoints: () => number;
  // The legacy entry and the shared cells, used by the direct input writer.
  readonly eval?: (ctx: number) => number;
  readonly opa_null?: () => number;
  readonly opa_boolean?: (b: number) => number;
}

/** Checked at load: the writer must build what the module's parser builds. */
const PROBE = { b: [1, -2, 4294967297, -9007199254740991, true, false, null, "", "xé😀"], a: { "": {}, z: [] }, "é": "k" };

const PAGE = 65536;

export class FastPolicy {
  private readonly memory: WebAssembly.Memory;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  private u8: Uint8Array;
  /** Memory from the saved heap pointer on, where each input is written. */
  private inputView: Uint8Array;
  private exports!: Exports;
  private dataAddr = 0;
  private dataHeapPtr = 0;
  private baseHeapPtr = 0;
  private builtinNames: string[] = [];
  entrypoints: Record<string, number> = {};
  /** Null when the module lacks what direct writing needs or fails the load-time check. */
  private writer: ValueWriter | null = null;
  private reader: ValueReader | null = null;
  /** The module's step counter (budget.ts), null for modules built without one. */
  fuel: ModuleFuel | null = null;

  private constructor(
    initialPages: number,
    private readonly host: HostBuiltinSet,
  ) {
    this.memory = new WebAssembly.Memory({ initial: initialPages });
    this.u8 = new Uint8Array(this.memory.buffer);
    this.inputView = this.u8;
  }

  /** `host` defaults to toolgate's host builtins (createHostBuiltins). */
  static async load(wasm: Uint8Array, opts: { initialPages?: number; host?: HostBuiltinSet } = {}): Promise<FastPolicy> {
    const p = new FastPolicy(opts.initialPages ?? 5, opts.host ?? createHostBuiltins());
    const module = await WebAssembly.compile(wasm as Uint8Array<ArrayBuffer>);
    const instance = await WebAssembly.instantiate(module, { env: p.imports() as WebAssembly.ModuleImports });
    p.exports = instance.exports as unknown as Exports;
    p.fuel = moduleFuel(instance.exports);
    p.host.attach({ exports: instance.exports, memory: p.memory });
    p.init();
    return p;
  }

  private imports(): Record<string, unknown> {
    const call = (id: number, ...args: number[]): number => this.builtinCall(id, args);
    return {
      memory: this.memory,
      opa_abort: (addr: number): never => {
        throw new Error(this.cString(addr));
      },
      opa_println: (addr: number): void => console.log(this.cString(addr)),
      opa_builtin0: (id: number, _ctx: number) => call(id),
      opa_builtin1: (id: number, _ctx: number, a: number) => call(id, a),
      opa_builtin2: (id: number, _ctx: number, a: number, b: number) => call(id, a, b),
      opa_builtin3: (id: number, _ctx: number, a: number, b: number, c: number) => call(id, a, b, c),
      opa_builtin4: (id: number, _ctx: number, a: number, b: number, c: number, d: number) => call(id, a, b, c, d),
    };
  }

  private init(): void {
    const builtins = this.dumpValue(this.exports.builtins()) as Record<string, number>;
    const missing = Object.keys(builtins).filter((n) => typeof this.host.builtins[n] !== "function");
    if (missing.length > 0) {
      throw new PolicyLoadError(`policy.wasm needs builtins this host does not provide: ${missing.sort().join(", ")}`);
    }
    for (const [name, id] of Object.entries(builtins)) this.builtinNames[id] = name;
    // As the SDK: empty data first, then entrypoints() (which probes the host builtins).
    this.dataAddr = this.loadJson(new TextEncoder().encode("{}"));
    this.baseHeapPtr = this.exports.opa_heap_ptr_get();
    this.dataHeapPtr = this.baseHeapPtr;
    this.inputView = this.view().subarray(this.dataHeapPtr);
    this.entrypoints = this.dumpValue(this.exports.entrypoints()) as Record<string, number>;
    this.writer = this.checkedWriter();
    this.reader = this.writer === null ? null : new ValueReader(this.memory);
  }

  private checkedWriter(): ValueWriter | null {
    const ex = this.exports;
    if (ex.eval === undefined || ex.opa_null === undefined || ex.opa_boolean === undefined) return null;
    const w = new ValueWriter(this.memory, { nullCell: ex.opa_null(), trueCell: ex.opa_boolean(1), falseCell: ex.opa_boolean(0) });
    const start = (this.exports.opa_heap_ptr_get() + 7) & ~7;
    const cells = w.write(PROBE, start);
    if (cells === null) return null;
    this.exports.opa_heap_ptr_set(cells.end);
    const direct = this.cString(ex.opa_json_dump(cells.addr));
    const text = new TextEncoder().encode(JSON.stringify(PROBE));
    const parsedAddr = this.loadJson(text);
    const parsed = this.cString(ex.opa_json_dump(parsedAddr));
    // The reader must give back what JSON.parse of the module's dump gives.
    const back = new ValueReader(this.memory).read(parsedAddr);
    this.exports.opa_heap_ptr_set(this.dataHeapPtr);
    return direct === parsed && JSON.stringify(back) === JSON.stringify(JSON.parse(parsed)) ? w : null;
  }

  /** Whether inputs go in as value cells (else as JSON text). */
  get writesValuesDirectly(): boolean {
    return this.writer !== null;
  }

  setData(data: unknown): void {
    this.exports.opa_heap_ptr_set(this.baseHeapPtr);
    this.dataAddr = this.loadJson(this.encoder.encode(JSON.stringify(data)));
    this.dataHeapPtr = this.exports.opa_heap_ptr_get();
    this.inputView = this.view().subarray(this.dataHeapPtr);
  }

  /** The result set, as the SDK's evaluate() returns it. Throws what the module aborts with. */
  evaluate(input: unknown, entrypoint: number): unknown {
    let inputLen = 0;
    let inputAddr = 0;
    // The SDK passes a falsy input as "no input"; do the same.
    if (input && this.writer !== null) {
      // Cells at the saved heap pointer, then a 16-byte ctx (+0 input, +4 data,
      // +8 result, +12 entrypoint), then the legacy eval: no JSON either way.
      const cells = this.writer.write(input, (this.dataHeapPtr + 7) & ~7);
      if (cells !== null) {
        const ctx = cells.end;
        this.exports.opa_heap_ptr_set(ctx + 16);
        const dv = new DataView(this.memory.buffer, ctx, 16);
        dv.setUint32(0, cells.addr, true);
        dv.setUint32(4, this.dataAddr, true);
        dv.setUint32(8, 0, true);
        dv.setInt32(12, entrypoint, true);
        this.host.startEvaluation();
        this.exports.eval!(ctx);
        const rs = new DataView(this.memory.buffer).getUint32(ctx + 8, true);
        if (rs === 0) return [];
        const value = this.reader!.read(rs);
        return value !== DECLINED ? value : JSON.parse(this.cString(this.exports.opa_json_dump(rs)));
      }
    }
    if (input) {
      const text = JSON.stringify(input);
      inputAddr = this.dataHeapPtr;
      this.reserve(inputAddr + text.length * 3);
      inputLen = this.encoder.encodeInto(text, this.inputView).written;
    }
    this.host.startEvaluation();
    // The heap starts after the input, or at the saved pointer when there is none.
    const ret = this.exports.opa_eval(0, entrypoint, this.dataAddr, inputAddr, inputLen, this.dataHeapPtr + inputLen, 0);
    return JSON.parse(this.cString(ret));
  }

  private reserve(end: number): void {
    if (end > this.memory.buffer.byteLength) this.memory.grow(Math.ceil((end - this.memory.buffer.byteLength) / PAGE));
    if (this.inputView.buffer !== this.memory.buffer) this.inputView = this.view().subarray(this.dataHeapPtr);
  }

  private view(): Uint8Array {
    if (this.u8.buffer !== this.memory.buffer) this.u8 = new Uint8Array(this.memory.buffer);
    return this.u8;
  }

  private cString(addr: number): string {
    const u8 = this.view();
    const end = u8.indexOf(0, addr);
    return this.decoder.decode(u8.subarray(addr, end < 0 ? u8.length : end));
  }

  private dumpValue(addr: number): unknown {
    return JSON.parse(this.cString(this.exports.opa_json_dump(addr)));
  }

  private loadJson(bytes: Uint8Array): number {
    const addr = this.exports.opa_malloc(bytes.byteLength);
    this.view().set(bytes, addr);
    const v = this.exports.opa_json_parse(addr, bytes.byteLength);
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
  const decide = (input: PolicyInput, options?: EvaluateOptions): PolicyDecision => {
    try {
      policy.fuel?.set(options?.budget ?? budget);
      const results = policy.evaluate(input, entrypointId);
      if (!Array.isArray(results) || results.length !== 1) return deny("policy_undefined");
      return toDecision((results[0] as { result?: unknown }).result);
    } catch (err) {
      return deny(policy.fuel?.exceeded(err) === true ? BUDGET_EXCEEDED : "policy_evaluation_error");
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
