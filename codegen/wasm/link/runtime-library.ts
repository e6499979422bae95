/**
 * The runtime library (runtime.wasm, already optimised by asc) decoded once into
 * the pieces the linker splices: raw type, global and data entries, exports, and
 * every function body with the byte ranges of its call targets, so linking only
 * rewrites function indices and never re-encodes the library's code.
 */
import { ByteReader, EXTERNAL, FUNC_TYPE_FORM, LinkError, SECTION } from "./bytes.js";
import { scanBody } from "./scan-code.js";
import type { CallSite } from "./scan-code.js";

export interface FuncType {
  readonly params: readonly number[];
  readonly results: readonly number[];
}

export type RuntimeImport =
  | { readonly kind: "function"; readonly module: string; readonly base: string; readonly type: number }
  | { readonly kind: "memory"; readonly module: string; readonly base: string; readonly min: number; readonly max: number | null };

export interface RuntimeGlobal {
  readonly valtype: number;
  readonly mutable: boolean;
  /** The constant initialiser, `end` included. */
  readonly init: Uint8Array;
}

export interface RuntimeExport {
  readonly name: string;
  readonly kind: number;
  readonly index: number;
}

export interface RuntimeBody {
  /** The body as in the code section (locals and instructions), without its size prefix. */
  readonly bytes: Uint8Array;
  /** Every `call` / `ref.func` immediate, in order. */
  readonly calls: readonly CallSite[];
  /** Every `i32.const` value and memory access offset: the static data addresses it may use. */
  readonly constants: readonly number[];
}

/** Where a data segment lands: `offset` null for a passive one. */
export interface RuntimeDataSegment {
  readonly offset: number | null;
  readonly payload: Uint8Array;
}

export interface RuntimeLibrary {
  readonly types: readonly FuncType[];
  readonly imports: readonly RuntimeImport[];
  /** Type index of each defined function. */
  readonly functions: readonly number[];
  readonly globals: readonly RuntimeGlobal[];
  readonly exports: readonly RuntimeExport[];
  readonly start: number | null;
  readonly bodies: readonly RuntimeBody[];
  /** Raw data segment entries. */
  readonly data: readonly Uint8Array[];
  /** The same segments decoded, in the same order. */
  readonly dataSegments: readonly RuntimeDataSegment[];
  /** First byte after every active segment. */
  readonly dataEnd: number;
  readonly hasDataCount: boolean;
  readonly customs: readonly { readonly name: string; readonly bytes: Uint8Array }[];
  /** Number of imported functions (the first function indices). */
  readonly importedFunctions: number;
}

const cache = new WeakMap<Uint8Array, RuntimeLibrary>();

/** Decodes `bytes` (once per array). */
export function runtimeLibrary(bytes: Uint8Array): RuntimeLibrary {
  let lib = cache.get(bytes);
  if (lib === undefined) {
    lib = decode(bytes);
    cache.set(bytes, lib);
  }
  return lib;
}

function decode(bytes: Uint8Array): RuntimeLibrary {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d || bytes[4] !== 1) {
    throw new LinkError("runtime library is not a version-1 Wasm binary");
  }
  const types: FuncType[] = [];
  const imports: RuntimeImport[] = [];
  const functions: number[] = [];
  const globals: RuntimeGlobal[] = [];
  const exports: RuntimeExport[] = [];
  const bodies: RuntimeBody[] = [];
  const data: Uint8Array[] = [];
  const dataSegments: RuntimeDataSegment[] = [];
  const customs: { name: string; bytes: Uint8Array }[] = [];
  let start: number | null = null;
  let dataEnd = 0;
  let hasDataCount = false;
  const r = new ByteReader(bytes, 8);
  while (!r.done) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    const s = new ByteReader(bytes, r.pos, end);
    switch (id) {
      case SECTION.custom: {
        const name = s.name();
        customs.push({ name, bytes: bytes.subarray(s.pos, end) });
        break;
      }
      case SECTION.type:
        for (let n = s.u32(); n > 0; n--) {
          if (s.byte() !== FUNC_TYPE_FORM) throw new LinkError("runtime library: unsupported type form");
          const params = valtypes(s);
          types.push({ params, results: valtypes(s) });
        }
        break;
      case SECTION.import:
        for (let n = s.u32(); n > 0; n--) imports.push(readImport(s));
        break;
      case SECTION.function:
        for (let n = s.u32(); n > 0; n--) functions.push(s.u32());
        break;
      case SECTION.global:
        for (let n = s.u32(); n > 0; n--) {
          const valtype = s.byte();
          const mutable = s.byte() === 1;
          const at = s.pos;
          skipConstExpr(s);
          globals.push({ valtype, mutable, init: bytes.subarray(at, s.pos) });
        }
        break;
      case SECTION.export:
        for (let n = s.u32(); n > 0; n--) exports.push({ name: s.name(), kind: s.byte(), index: s.u32() });
        break;
      case SECTION.start:
        start = s.u32();
        break;
      case SECTION.code:
        for (let n = s.u32(); n > 0; n--) {
          const len = s.u32();
          const body = bytes.subarray(s.pos, s.pos + len);
          bodies.push({ bytes: body, ...scanBody(body) });
          s.skip(len);
        }
        break;
      case SECTION.data:
        for (let n = s.u32(); n > 0; n--) {
          const at = s.pos;
          const seg = readDataSegment(s);
          if (seg.offset !== null) dataEnd = Math.max(dataEnd, seg.offset + seg.payload.length);
          data.push(bytes.subarray(at, s.pos));
          dataSegments.push(seg);
        }
        break;
      case SECTION.dataCount:
        hasDataCount = true;
        break;
      case SECTION.memory:
        throw new LinkError("runtime library defines its memory; it must import env.memory");
      case SECTION.table:
      case SECTION.element:
        throw new LinkError("runtime library has a table; the linker does not relocate element segments");
      default:
        throw new LinkError(`runtime library: unknown section ${id}`);
    }
    r.skip(size);
  }
  if (functions.length !== bodies.length) throw new LinkError("runtime library: function and code sections disagree");
  const importedFunctions = imports.filter((i) => i.kind === "function").length;
  return { types, imports, functions, globals, exports, start, bodies, data, dataSegments, dataEnd, hasDataCount, customs, importedFunctions };
}

function valtypes(r: ByteReader): number[] {
  const out: number[] = [];
  for (let n = r.u32(); n > 0; n--) out.push(r.byte());
  return out;
}

function readImport(r: ByteReader): RuntimeImport {
  const module = r.name();
  const base = r.name();
  const kind = r.byte();
  if (kind === EXTERNAL.function) return { kind: "function", module, base, type: r.u32() };
  if (kind === EXTERNAL.memory) {
    const flags = r.byte();
    const min = r.u32();
    return { kind: "memory", module, base, min, max: (flags & 1) !== 0 ? r.u32() : null };
  }
  throw new LinkError(`runtime library imports ${module}.${base} of kind ${kind}; only functions and memory are supported`);
}

/** A constant expression: one `*.const` or `global.get`, then `end`. */
function skipConstExpr(r: ByteReader): void {
  for (;;) {
    const op = r.byte();
    if (op === 0x0b) return;
    if (op === 0x41 || op === 0x42) r.skipLeb();
    else if (op === 0x43) r.skip(4);
    else if (op === 0x44) r.skip(8);
    else if (op === 0x23) r.u32();
    else throw new LinkError(`runtime library: unsupported constant expression opcode 0x${op.toString(16)}`);
  }
}

/** Reads one data segment: its payload and, for an active one, its constant address. */
function readDataSegment(r: ByteReader): RuntimeDataSegment {
  const flags = r.u32();
  let offset: number | null = null;
  if (flags === 0 || flags === 2) {
    if (flags === 2) r.u32();
    if (r.byte() !== 0x41) throw new LinkError("runtime library: data segment offset is not an i32.const");
    offset = r.s32();
    if (r.byte() !== 0x0b) throw new LinkError("runtime library: data segment offset is not a constant");
  } else if (flags !== 1) {
    throw new LinkError(`runtime library: unknown data segment flags ${flags}`);
  }
  const len = r.u32();
  const payload = r.bytes.subarray(r.pos, r.pos + len);
  r.skip(len);
  return { offset: offset === null ? null : offset >>> 0, payload };
}
