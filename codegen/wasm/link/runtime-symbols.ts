/**
 * How generated code reaches the runtime library in a builder module (RUNTIME-API.md
 * section 1): by the names of its exports and imports, by replacing its
 * `toolgate.*` imports with generated functions, and by appending static data
 * after the library's own, which moves the heap base.
 */
import { LinkError } from "./bytes.js";
import type { ExpressionRef } from "./expr.js";
import { Module } from "./module-builder.js";
import { runtimeBytes } from "./runtime-bytes.js";
import { runtimeLibrary } from "./runtime-library.js";
import { createType, i32 } from "./types.js";
import { RUNTIME_IMPORT_MODULE } from "../../../src/policy/abi.js";
import type { RuntimeImport } from "../../../src/policy/abi.js";

export const RUNTIME_EXPORT_PREFIX = "runtime:";
export const RUNTIME_IMPORT_PREFIX = "import:";
/** The module of the imports generated code provides (RUNTIME_IMPORTS). */
export const TOOLGATE_MODULE = RUNTIME_IMPORT_MODULE;

/** A fresh builder module over the runtime library (decoded once per library). */
export function readRuntime(bytes: Uint8Array = runtimeBytes()): Module {
  return new Module(runtimeLibrary(bytes));
}

/** The name generated code uses for the runtime's export `externalName` (a function or a global). */
export function exportedName(m: Module, externalName: string): string {
  if (!m.runtime.exports.some((e) => e.name === externalName)) throw new LinkError(`runtime has no export ${externalName}`);
  return RUNTIME_EXPORT_PREFIX + externalName;
}

/** The name of the function imported as module.base (by the runtime or the generated code), if any. */
export function importedFunction(m: Module, module: string, base: string): string | undefined {
  if (module === TOOLGATE_MODULE) return undefined;
  if (m.runtime.imports.some((i) => i.kind === "function" && i.module === module && i.base === base)) return `${RUNTIME_IMPORT_PREFIX}${module}.${base}`;
  return m.imports.find((i) => i.module === module && i.base === base)?.name;
}

/** Defines the function every runtime call of import `toolgate.<name>` now calls; returns its name. */
export function replaceImport(m: Module, name: RuntimeImport, vars: readonly number[], body: ExpressionRef): string {
  const imp = m.runtime.imports.find((i) => i.kind === "function" && i.module === TOOLGATE_MODULE && i.base === name);
  if (imp === undefined || imp.kind !== "function") throw new LinkError(`runtime does not import toolgate.${name}`);
  const type = m.runtime.types[imp.type]!;
  const internal = `${TOOLGATE_MODULE}.${name}`;
  if (m.hasName(internal)) throw new LinkError(`toolgate.${name} is already replaced`);
  m.addFunction(internal, createType(type.params.map(fromValtype)), createType(type.results.map(fromValtype)), vars, body);
  return internal;
}

/** Where appended static data starts: after all data so far, 16-byte aligned. */
export function staticDataStart(m: Module): number {
  let end = m.runtime.dataEnd;
  for (const d of m.data) end = Math.max(end, d.offset + d.bytes.length);
  return align16(end);
}

/** Appends `bytes` as an active data segment after all data so far; returns its address. */
export function appendStaticData(m: Module, bytes: Uint8Array): number {
  const offset = staticDataStart(m);
  m.data.push({ offset, bytes });
  return offset;
}

/** Makes `toolgate.heap_base` return the first free address after all data. */
export function finishHeapBase(m: Module): number {
  const base = staticDataStart(m);
  replaceImport(m, "heap_base", [], m.i32.const(base));
  return base;
}

/** Gives the runtime's exported global `externalName` a new constant initial value. */
/** Whether the runtime library exports the global `externalName`. */
export function runtimeHasGlobal(m: Module, externalName: string): boolean {
  return m.runtime.exports.some((x) => x.name === externalName && x.kind === 3);
}

export function setGlobalInit(m: Module, externalName: string, init: ExpressionRef): void {
  const e = m.runtime.exports.find((x) => x.name === externalName && x.kind === 3);
  if (e === undefined) throw new LinkError(`runtime exports no global ${externalName}`);
  m.globalInits.set(e.index, init);
}

function fromValtype(code: number): number {
  if (code === 0x7f) return i32;
  throw new LinkError(`toolgate.* imports take and return i32 only (value type 0x${code.toString(16)})`);
}

function align16(n: number): number {
  return (n + 15) & ~15;
}
