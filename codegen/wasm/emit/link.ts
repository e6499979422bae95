/**
 * Mechanical linking with the runtime library: read runtime.wasm, find the imports
 * that generated code replaces, append static data after the runtime's own, and set
 * the features binaryen must assume (asc writes no target_features section).
 */
import binaryen from "binaryen";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const RUNTIME_PATH = join(dirname(fileURLToPath(import.meta.url)), "..", "runtime.wasm");

let runtimeBytes: Uint8Array | undefined;

export function readRuntime(): Uint8Array {
  runtimeBytes ??= new Uint8Array(readFileSync(RUNTIME_PATH));
  return runtimeBytes;
}

export const FEATURES =
  binaryen.Features.MVP |
  binaryen.Features.MutableGlobals |
  binaryen.Features.SignExt |
  binaryen.Features.NontrappingFPToInt |
  binaryen.Features.BulkMemory |
  binaryen.Features.BulkMemoryOpt;

export function loadRuntimeModule(bytes: Uint8Array = readRuntime()): binaryen.Module {
  const m = binaryen.readBinary(bytes);
  m.setFeatures(FEATURES);
  return m;
}

/** Internal name of the function imported as `module.base`, if any. */
export function importedFunction(m: binaryen.Module, module: string, base: string): string | undefined {
  for (let i = 0; i < m.getNumFunctions(); i++) {
    const f = binaryen.getFunctionInfo(m.getFunctionByIndex(i));
    if (f.module === module && f.base === base) return f.name;
  }
  return undefined;
}

/** Internal name of the function exported as `name` (the runtime has no name section). */
export function exportedFunction(m: binaryen.Module, name: string): string {
  const e = m.getExport(name);
  if (e === 0) throw new Error(`runtime.wasm does not export ${name}`);
  return binaryen.getExportInfo(e).value;
}

/** Replaces the import `module.base` by a function with the same internal name. */
export function replaceImport(
  m: binaryen.Module,
  module: string,
  base: string,
  params: binaryen.Type,
  results: binaryen.Type,
  vars: readonly binaryen.Type[],
  body: binaryen.ExpressionRef,
): void {
  const name = importedFunction(m, module, base);
  if (name === undefined) throw new Error(`runtime.wasm does not import ${module}.${base}`);
  m.removeFunction(name);
  m.addFunction(name, params, results, vars, body);
}

/** binaryen's internal name of the imported memory when the module has no names. */
const MEMORY = "mimport$0";

interface Segment {
  readonly offset: number;
  readonly data: Uint8Array;
}

type SegmentApi = {
  getNumDataSegments(): number;
  getDataSegmentByIndex(i: number): number;
  getDataSegmentInfo(ref: number): { offset: number | null; data: ArrayBuffer; passive: boolean };
};

function segments(m: binaryen.Module): Segment[] {
  const mod = m as unknown as SegmentApi;
  const segs: Segment[] = [];
  for (let i = 0; i < mod.getNumDataSegments(); i++) {
    const info = mod.getDataSegmentInfo(mod.getDataSegmentByIndex(i));
    if (info.passive || info.offset === null) throw new Error("runtime.wasm has a passive data segment");
    segs.push({ offset: info.offset, data: new Uint8Array(info.data) });
  }
  return segs;
}

/** Where appended static data starts: after the last segment, 16-byte aligned. */
export function staticDataStart(m: binaryen.Module): number {
  let end = 0;
  for (const s of segments(m)) end = Math.max(end, s.offset + s.data.byteLength);
  return align16(end);
}

/** Appends `blob` at `staticDataStart(m)` and returns the first free address after it. */
export function appendStaticData(m: binaryen.Module, blob: Uint8Array): number {
  const segs = segments(m);
  const address = staticDataStart(m);
  segs.push({ offset: address, data: blob });
  const mem = m.getMemoryInfo(MEMORY);
  m.setMemory(
    mem.initial,
    -1,
    null,
    segs.map((s) => ({ offset: m.i32.const(s.offset), data: s.data, passive: false })),
    false,
    false,
    MEMORY,
  );
  m.addMemoryImport(MEMORY, "env", "memory");
  return align16(address + blob.byteLength);
}

export function align16(n: number): number {
  return (n + 15) & ~15;
}
