/**
 * Binary-level linker: the runtime library's sections spliced with the builder
 * module's generated functions, globals, exports and data into one module.
 *
 * Function index space of the result: the runtime's function imports except
 * `toolgate.*` (which generated functions replace), then new imports of the
 * generated code, then the runtime's live functions, then the generated ones. A
 * runtime function is live when a kept export (`KEPT_RUNTIME_EXPORTS`), the
 * generated code or the start function reaches it through calls; the others and
 * the other runtime exports are dropped. Every call in the kept runtime code is
 * renumbered accordingly (the call sites are known from decoding the library
 * once); types, globals and data segments keep their runtime indices and new ones
 * come after, so nothing else in the library changes.
 */
import { ByteReader, ByteWriter, EXTERNAL, FUNC_TYPE_FORM, LinkError, SECTION } from "./bytes.js";
import { encodeFunction } from "./encode-function.js";
import type { Symbols } from "./encode-function.js";
import type { ExpressionRef } from "./expr.js";
import { KEPT_RUNTIME_EXPORT_NAMES } from "./kept-exports.js";
import type { Module } from "./module-builder.js";
import type { RuntimeBody, RuntimeLibrary } from "./runtime-library.js";
import { RUNTIME_EXPORT_PREFIX, RUNTIME_IMPORT_PREFIX, TOOLGATE_MODULE } from "./runtime-symbols.js";
import { expandType, valtype } from "./types.js";
import type { Type } from "./types.js";

const PAGE = 65536;

/** Where the generated functions sit in the linked module (for optimising only them). */
export interface LinkedModule {
  readonly bytes: Uint8Array;
  readonly firstGenerated: number;
  readonly generatedCount: number;
  /** The runtime library's functions the module kept (indices among its defined functions, ascending). */
  readonly keptRuntime: readonly number[];
}

export interface LinkOptions {
  /**
   * Keep every runtime function and export, as before dead-code elimination (to
   * compare module size and load time); default: `keepWholeRuntime`'s setting, off.
   */
  readonly wholeRuntime?: boolean;
}

let wholeRuntimeDefault = false;

/** Sets `LinkOptions.wholeRuntime` for every later link in this process (benchmarks compare both). */
export function keepWholeRuntime(on: boolean): void {
  wholeRuntimeDefault = on;
}

export function linkModule(m: Module, opts: LinkOptions = {}): LinkedModule {
  const rt = m.runtime;
  const whole = opts.wholeRuntime ?? wholeRuntimeDefault;
  const keptExports = whole ? rt.exports : rt.exports.filter((e) => KEPT_RUNTIME_EXPORT_NAMES.has(e.name));
  const live = liveRuntimeFunctions(rt, m, keptExports, whole);
  const newPosition = new Int32Array(rt.functions.length).fill(-1);
  live.forEach((old, i) => (newPosition[old] = i));
  const types = new TypeTable(rt.types.map((t) => typeKey(t.params, t.results)));

  // Function imports of the result.
  const imports: { module: string; base: string; type: number }[] = [];
  const importIndex = new Map<string, number>();
  const oldImportSlot: (number | string)[] = []; // new index, or the name of the replacing function
  for (const imp of rt.imports) {
    if (imp.kind !== "function") continue;
    if (imp.module === TOOLGATE_MODULE) {
      oldImportSlot.push(`${TOOLGATE_MODULE}.${imp.base}`);
      continue;
    }
    importIndex.set(`${RUNTIME_IMPORT_PREFIX}${imp.module}.${imp.base}`, imports.length);
    oldImportSlot.push(imports.length);
    imports.push({ module: imp.module, base: imp.base, type: imp.type });
  }
  for (const imp of m.imports) {
    importIndex.set(imp.name, imports.length);
    imports.push({ module: imp.module, base: imp.base, type: types.index(imp.params, imp.results) });
  }
  const runtimeStart = imports.length;
  const generatedStart = runtimeStart + live.length;
  const generatedIndex = new Map(m.functions.map((f, i) => [f.name, generatedStart + i]));

  const oldToNew = (old: number): number => {
    if (old >= rt.importedFunctions) {
      const at = newPosition[old - rt.importedFunctions]!;
      if (at < 0) throw new LinkError(`runtime function ${old} is referenced but was dropped as unreachable`);
      return runtimeStart + at;
    }
    const slot = oldImportSlot[old]!;
    if (typeof slot === "number") return slot;
    const idx = generatedIndex.get(slot);
    if (idx === undefined) throw new LinkError(`the generated code does not provide ${slot}, which the runtime imports`);
    return idx;
  };
  const runtimeExport = (name: string, kind: number): number => {
    const e = rt.exports.find((x) => x.name === name && x.kind === kind);
    if (e === undefined) throw new LinkError(`runtime has no ${kind === EXTERNAL.function ? "function" : "global"} export ${name}`);
    return kind === EXTERNAL.function ? oldToNew(e.index) : e.index;
  };
  const globalIndex = new Map(m.globals.map((g, i) => [g.name, rt.globals.length + i]));
  const symbols: Symbols = {
    func(name) {
      const idx = generatedIndex.get(name) ?? importIndex.get(name);
      if (idx !== undefined) return idx;
      if (name.startsWith(RUNTIME_EXPORT_PREFIX)) return runtimeExport(name.slice(RUNTIME_EXPORT_PREFIX.length), EXTERNAL.function);
      throw new LinkError(`call of unknown function ${name}`);
    },
    global(name) {
      const idx = globalIndex.get(name);
      if (idx !== undefined) return idx;
      if (name.startsWith(RUNTIME_EXPORT_PREFIX)) return runtimeExport(name.slice(RUNTIME_EXPORT_PREFIX.length), EXTERNAL.global);
      throw new LinkError(`use of unknown global ${name}`);
    },
  };

  const generatedTypes = m.functions.map((f) => types.index(f.params, f.results));
  const generatedBodies = m.functions.map((f) => encodeFunction(f, m.exprs, symbols));
  const out = new ByteWriter().bytes(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
  const section = (id: number, body: ByteWriter): void => {
    out.byte(id).sized(body);
  };

  section(SECTION.type, types.encode());

  const dataEnd = m.data.reduce((end, d) => Math.max(end, d.offset + d.bytes.length), rt.dataEnd);
  const dataPages = Math.ceil(dataEnd / PAGE);
  const imp = new ByteWriter();
  const memories = rt.imports.filter((i) => i.kind === "memory");
  // Static data beyond the imported memory's minimum is copied in by a start function that
  // grows the memory first: the memory import keeps the runtime's minimum, so the module
  // loads into the memory any host gives (the opa-wasm SDK's default is 5 pages).
  const memoryMin = memories.length === 0 ? 0 : Math.min(...memories.map((i) => i.min));
  const passive = memories.length > 0 && m.data.length > 0 && dataPages > memoryMin;
  imp.u32(imports.length + memories.length);
  for (const i of rt.imports) {
    if (i.kind === "memory") {
      imp.name(i.module).name(i.base).byte(EXTERNAL.memory).byte(i.max === null ? 0 : 1).u32(i.min);
      if (i.max !== null) {
        if (i.max < dataPages) throw new LinkError(`static data needs ${dataPages} pages; the imported memory allows ${i.max}`);
        imp.u32(i.max);
      }
    }
  }
  for (const i of imports) imp.name(i.module).name(i.base).byte(EXTERNAL.function).u32(i.type);
  section(SECTION.import, imp);

  const dataStart = passive ? { index: generatedStart + m.functions.length, type: types.index(0, 0) } : null;
  const fns = new ByteWriter().u32(live.length + m.functions.length + (dataStart === null ? 0 : 1));
  for (const old of live) fns.u32(rt.functions[old]!);
  for (const t of generatedTypes) fns.u32(t);
  if (dataStart !== null) fns.u32(dataStart.type);
  section(SECTION.function, fns);

  const globals = new ByteWriter().u32(rt.globals.length + m.globals.length);
  rt.globals.forEach((g, i) => {
    globals.byte(g.valtype).byte(g.mutable ? 1 : 0);
    const init = m.globalInits.get(i);
    if (init === undefined) globals.bytes(g.init);
    else constExpr(globals, m, init);
  });
  for (const g of m.globals) {
    globals.byte(valtype(g.type)).byte(g.mutable ? 1 : 0);
    constExpr(globals, m, g.init);
  }
  section(SECTION.global, globals);

  const exports = new ByteWriter().u32(keptExports.length + m.exports.length);
  const exported = new Set<string>();
  const exportOne = (name: string, kind: number, index: number): void => {
    if (exported.has(name)) throw new LinkError(`export ${name} defined twice`);
    exported.add(name);
    exports.name(name).byte(kind).u32(index);
  };
  for (const e of keptExports) exportOne(e.name, e.kind, e.kind === EXTERNAL.function ? oldToNew(e.index) : e.index);
  for (const e of m.exports) exportOne(e.external, EXTERNAL.function, symbols.func(e.internal));
  section(SECTION.export, exports);

  const runtimeStartFn = rt.start === null ? null : oldToNew(rt.start);
  if (dataStart !== null) section(SECTION.start, new ByteWriter().u32(dataStart.index));
  else if (runtimeStartFn !== null) section(SECTION.start, new ByteWriter().u32(runtimeStartFn));
  const liveData = liveDataSegments(rt, m, live, whole);
  const keptData = rt.data.filter((_, i) => liveData[i]);
  if (rt.hasDataCount || passive) section(SECTION.dataCount, new ByteWriter().u32(keptData.length + m.data.length));

  const code = new ByteWriter().u32(live.length + generatedBodies.length + (dataStart === null ? 0 : 1));
  for (const old of live) code.sized(renumberCalls(rt.bodies[old]!, oldToNew));
  for (const b of generatedBodies) code.sized(b);
  if (dataStart !== null) code.sized(copyDataBody(m.data, keptData.length, dataPages, runtimeStartFn));
  section(SECTION.code, code);

  const data = new ByteWriter().u32(keptData.length + m.data.length);
  for (const d of keptData) data.bytes(d);
  for (const d of m.data) {
    if (passive) data.u32(1).sized(d.bytes);
    else data.u32(0).byte(0x41).s32(d.offset).byte(0x0b).sized(d.bytes);
  }
  section(SECTION.data, data);

  // A "name" section's function indices would be stale once functions are dropped; it is debug info only.
  const runtimeCustoms = whole ? rt.customs : rt.customs.filter((c) => c.name !== "name");
  for (const c of [...runtimeCustoms, ...m.customSections]) section(SECTION.custom, new ByteWriter().name(c.name).bytes(c.bytes));
  return { bytes: out.finish(), firstGenerated: generatedStart, generatedCount: m.functions.length, keptRuntime: live };
}

/**
 * The runtime's defined functions (0-based among them, ascending) reachable
 * through calls from the kept exports, the generated code's references to runtime
 * exports, and the start function: every one with `whole`.
 */
function liveRuntimeFunctions(rt: RuntimeLibrary, m: Module, keptExports: RuntimeLibrary["exports"], whole: boolean): number[] {
  const count = rt.functions.length;
  if (whole) return Array.from({ length: count }, (_, i) => i);
  const live = new Uint8Array(count);
  const pending: number[] = [];
  const reach = (funcIndex: number): void => {
    const k = funcIndex - rt.importedFunctions; // imports are always kept
    if (k >= 0 && live[k] === 0) {
      live[k] = 1;
      pending.push(k);
    }
  };
  const functionExports = new Map(rt.exports.filter((e) => e.kind === EXTERNAL.function).map((e) => [e.name, e.index]));
  const reachName = (name: string): void => {
    if (!name.startsWith(RUNTIME_EXPORT_PREFIX)) return;
    const idx = functionExports.get(name.slice(RUNTIME_EXPORT_PREFIX.length));
    if (idx !== undefined) reach(idx);
  };
  for (const e of keptExports) if (e.kind === EXTERNAL.function) reach(e.index);
  for (const target of m.exprs.callTargets()) reachName(target);
  for (const e of m.exports) reachName(e.internal);
  if (rt.start !== null) reach(rt.start);
  for (let k = pending.pop(); k !== undefined; k = pending.pop()) {
    for (const c of rt.bodies[k]!.calls) reach(c.callee);
  }
  const out: number[] = [];
  live.forEach((on, i) => {
    if (on === 1) out.push(i);
  });
  return out;
}

/**
 * The start function of a module whose static data is passive: grow the memory to
 * `pages` (trap if the host refuses), copy each segment to its offset and drop it,
 * then run the runtime's own start function.
 */
function copyDataBody(segments: readonly { offset: number; bytes: Uint8Array }[], firstIndex: number, pages: number, runtimeStart: number | null): Uint8Array {
  const w = new ByteWriter().u32(0); // no locals
  const memorySize = (): void => void w.byte(0x3f).byte(0x00);
  memorySize();
  w.byte(0x41).s32(pages).byte(0x49); // i32.lt_u
  w.byte(0x04).byte(0x40); // if
  w.byte(0x41).s32(pages);
  memorySize();
  w.byte(0x6b); // i32.sub
  w.byte(0x40).byte(0x00); // memory.grow
  w.byte(0x41).s32(-1).byte(0x46); // i32.eq
  w.byte(0x04).byte(0x40).byte(0x00).byte(0x0b); // if unreachable end
  w.byte(0x0b); // end
  segments.forEach((d, i) => {
    w.byte(0x41).s32(d.offset).byte(0x41).s32(0).byte(0x41).s32(d.bytes.length);
    w.byte(0xfc).u32(8).u32(firstIndex + i).byte(0x00); // memory.init
    w.byte(0xfc).u32(9).u32(firstIndex + i); // data.drop
  });
  if (runtimeStart !== null) w.byte(0x10).u32(runtimeStart);
  return w.byte(0x0b).finish();
}

/** Why `bytes` is not a valid module (the engine's compile error), or null. */
export function validationError(bytes: Uint8Array): string | null {
  const source = bytes as Uint8Array<ArrayBuffer>;
  if (WebAssembly.validate(source)) return null;
  try {
    new WebAssembly.Module(source);
    return "rejected by WebAssembly.validate";
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * Which runtime data segments to keep. A segment is kept when an address in it (its
 * end included) appears as an `i32.const` or memory access offset in a kept runtime
 * body or the generated code, as a global's initial value, or as an aligned 32-bit
 * word of generated data or of a kept segment (static objects point at each other);
 * the others are never addressed and are dropped. The memory layout does not move:
 * a dropped segment's bytes are just left zero. With a passive segment (addressed by
 * index) or `whole`, all are kept.
 */
function liveDataSegments(rt: RuntimeLibrary, m: Module, live: readonly number[], whole: boolean): boolean[] {
  const segments = rt.dataSegments;
  if (whole || segments.some((d) => d.offset === null)) return segments.map(() => true);
  const keep = segments.map(() => false);
  const pending: number[] = [];
  const add = (addresses: readonly number[]): void => {
    for (const a of addresses) pending.push(a); // not push(...a): static data may hold millions of words
  };
  for (const k of live) add(rt.bodies[k]!.constants);
  for (const g of rt.globals) if (g.init[0] === 0x41) pending.push(new ByteReader(g.init, 1).s32() >>> 0);
  add(m.exprs.addressConstants());
  for (const d of m.data) add(alignedWords(d.offset, d.bytes));
  const order = segments.map((_, i) => i).sort((a, b) => segments[a]!.offset! - segments[b]!.offset!);
  const starts = order.map((i) => segments[i]!.offset!);
  for (let addr = pending.pop(); addr !== undefined; addr = pending.pop()) {
    // The last segment starting at or before addr, and the one before it (addr may be its end).
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= addr) lo = mid + 1;
      else hi = mid;
    }
    for (let j = lo - 1; j >= 0 && j >= lo - 2; j--) {
      const i = order[j]!;
      const seg = segments[i]!;
      if (keep[i] || addr > seg.offset! + seg.payload.length) continue;
      keep[i] = true;
      add(alignedWords(seg.offset!, seg.payload));
    }
  }
  return keep;
}

/** The little-endian 32-bit words of `bytes` placed at `at` that sit at 4-aligned addresses. */
function alignedWords(at: number, bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = (4 - (at % 4)) % 4; i + 4 <= bytes.length; i += 4) {
    out.push((bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) >>> 0);
  }
  return out;
}

/** A runtime body with every call target moved to its new index. */
function renumberCalls(body: RuntimeBody, oldToNew: (old: number) => number): Uint8Array {
  if (body.calls.length === 0) return body.bytes;
  const w = new ByteWriter();
  let from = 0;
  for (const c of body.calls) {
    w.bytes(body.bytes.subarray(from, c.at)).u32(oldToNew(c.callee));
    from = c.end;
  }
  return w.bytes(body.bytes.subarray(from)).finish();
}

/** A global's initialiser: one constant node. */
function constExpr(w: ByteWriter, m: Module, ref: ExpressionRef): void {
  const e = m.exprs.get(ref);
  if (e.op !== "const") throw new LinkError("a global's initial value must be a constant");
  const code = valtype(e.type);
  if (code === 0x7f) w.byte(0x41).s32(Number(e.value));
  else if (code === 0x7e) w.byte(0x42).s64(BigInt(e.value));
  else if (code === 0x7c) w.byte(0x44).f64(Number(e.value));
  else throw new LinkError(`unsupported global type ${e.type}`);
  w.byte(0x0b);
}

function typeKey(params: readonly number[], results: readonly number[]): string {
  return `${params.join(",")}:${results.join(",")}`;
}

/** The type section: the runtime's types at their indices, new signatures appended once each. */
class TypeTable {
  private readonly keys: string[];
  private readonly byKey = new Map<string, number>();

  constructor(runtimeKeys: readonly string[]) {
    this.keys = [...runtimeKeys];
    runtimeKeys.forEach((k, i) => {
      if (!this.byKey.has(k)) this.byKey.set(k, i);
    });
  }

  index(params: Type, results: Type): number {
    const key = typeKey(expandType(params).map(valtype), expandType(results).map(valtype));
    let i = this.byKey.get(key);
    if (i === undefined) {
      i = this.keys.length;
      this.keys.push(key);
      this.byKey.set(key, i);
    }
    return i;
  }

  encode(): ByteWriter {
    const w = new ByteWriter().u32(this.keys.length);
    for (const k of this.keys) {
      const [params, results] = k.split(":").map((s) => (s === "" ? [] : s.split(",").map(Number)));
      w.byte(FUNC_TYPE_FORM).u32(params!.length);
      for (const p of params!) w.byte(p);
      w.u32(results!.length);
      for (const r of results!) w.byte(r);
    }
    return w;
  }
}
