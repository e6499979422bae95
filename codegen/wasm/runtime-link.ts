/**
 * Mechanics of linking generated code into the runtime library (RUNTIME-API.md
 * section 1): read runtime.wasm, replace the `toolgate.*` imports with generated
 * functions, append static data, and point the allocator past it.
 */
import binaryen from "binaryen";
import { runtimeBytes } from "./link/runtime-bytes.js";
import { HOST_IMPORT_MODULE, HOST_IMPORTS, RUNTIME_IMPORT_MODULE, TOOLGATE_HOST_EXPORTS } from "../../src/policy/abi.js";
import type { RuntimeImport } from "../../src/policy/abi.js";

// One library for both linkers: useRuntimeBytes also redirects the emitter's (codegen/wasm/link).
export { RUNTIME_WASM_FILE, useRuntimeBytes } from "./link/runtime-bytes.js";

/** Features the runtime uses; asc writes no target_features section. */
export const RUNTIME_FEATURES: number =
  binaryen.Features.MutableGlobals |
  binaryen.Features.SignExt |
  binaryen.Features.NontrappingFPToInt |
  binaryen.Features.BulkMemory |
  binaryen.Features.BulkMemoryOpt;


// binaryen.js 132 has these at run time; its index.d.ts names them differently.
interface DataSegmentInfo {
  name: string;
  offset: number | null;
  data: ArrayBuffer;
  passive: boolean;
}
interface DataSegmentApi {
  getNumDataSegments(): number;
  getDataSegmentByIndex(i: number): number;
  getDataSegmentInfo(ref: number): DataSegmentInfo;
}
function segmentApi(m: binaryen.Module): DataSegmentApi {
  return m as unknown as DataSegmentApi;
}

/**
 * binaryen's internal name of the imported memory after readBinary (the text
 * printer shows it as $0). Loads and stores refer to it by this name.
 */
const MEMORY_NAME = "mimport$0";

/** Reads the runtime library (the file once per process) into a fresh binaryen module with its features set. */
export function readRuntime(bytes: Uint8Array = runtimeBytes()): binaryen.Module {
  const m = binaryen.readBinary(bytes);
  m.setFeatures(RUNTIME_FEATURES);
  return m;
}

/** Internal name of the function imported as module.base, if any. */
export function importedFunction(m: binaryen.Module, module: string, base: string): string | undefined {
  for (let i = 0; i < m.getNumFunctions(); i++) {
    const info = binaryen.getFunctionInfo(m.getFunctionByIndex(i));
    if (info.module === module && info.base === base) return info.name;
  }
  return undefined;
}

/** Internal name of an exported function or global. */
export function exportedName(m: binaryen.Module, externalName: string): string {
  const ref = m.getExport(externalName);
  if (ref === 0) throw new Error(`runtime has no export ${externalName}`);
  return binaryen.getExportInfo(ref).value;
}

/**
 * Replaces import `toolgate.<name>` by a defined function with the same internal
 * name, so every call site in the runtime now calls `body`.
 */
export function replaceImport(
  m: binaryen.Module,
  name: RuntimeImport,
  vars: readonly number[],
  body: number,
): string {
  const internal = importedFunction(m, RUNTIME_IMPORT_MODULE, name);
  if (internal === undefined) throw new Error(`runtime does not import ${RUNTIME_IMPORT_MODULE}.${name} (already replaced?)`);
  const info = binaryen.getFunctionInfo(m.getFunction(internal));
  m.removeFunction(internal);
  m.addFunction(internal, info.params, info.results, [...vars], body);
  return internal;
}

/** End of all active data segments (first free byte). */
export function dataEnd(m: binaryen.Module): number {
  const api = segmentApi(m);
  let end = 0;
  for (let i = 0; i < api.getNumDataSegments(); i++) {
    const info = api.getDataSegmentInfo(api.getDataSegmentByIndex(i));
    if (!info.passive && info.offset !== null) end = Math.max(end, info.offset + info.data.byteLength);
  }
  return end;
}

/** Where appended static data starts: after the last segment, 16-byte aligned. */
export function staticDataStart(m: binaryen.Module): number {
  return align16(dataEnd(m));
}

/**
 * Appends `bytes` as a new active data segment after all existing data (16-byte
 * aligned) and returns its address. Re-creates the memory with every segment and
 * re-imports it as env.memory (binaryen.js cannot add one segment alone).
 */
export function appendStaticData(m: binaryen.Module, bytes: Uint8Array): number {
  const api = segmentApi(m);
  const addr = staticDataStart(m);
  const segments: binaryen.MemorySegment[] = [];
  for (let i = 0; i < api.getNumDataSegments(); i++) {
    const info = api.getDataSegmentInfo(api.getDataSegmentByIndex(i));
    segments.push({
      data: new Uint8Array(info.data),
      offset: m.i32.const(info.offset ?? 0),
      passive: info.passive,
    });
  }
  segments.push({ data: bytes, offset: m.i32.const(addr), passive: false });
  const mem = m.getMemoryInfo();
  const needPages = Math.ceil((addr + bytes.length) / 65536);
  const initial = Math.max(mem.initial, needPages);
  m.setMemory(initial, -1, null, segments, false, false, MEMORY_NAME);
  m.addMemoryImport(MEMORY_NAME, HOST_IMPORT_MODULE, HOST_IMPORTS.memory);
  return addr;
}

/** Makes `toolgate.heap_base` return the first free address after all data. */
export function finishHeapBase(m: binaryen.Module): number {
  const base = staticDataStart(m);
  replaceImport(m, "heap_base", [], m.i32.const(base));
  return base;
}

/** Turns strict builtin errors on by re-creating the exported global with init 1. */
export function setStrictBuiltinErrors(m: binaryen.Module, on: boolean): void {
  const name = exportedName(m, TOOLGATE_HOST_EXPORTS.strictBuiltinErrors);
  m.removeGlobal(name);
  m.addGlobal(name, binaryen.i32, true, m.i32.const(on ? 1 : 0));
}

function align16(n: number): number {
  return (n + 15) & ~15;
}
