/**
 * Writes a JSON-compatible JS value straight into the policy module's memory as
 * runtime value cells (codegen/wasm/RUNTIME-API.md section 2), so the fast engine
 * skips both JSON.stringify on the host and the JSON parse in the module.
 *
 * It produces exactly what `opa_json_parse(JSON.stringify(v))` would, and gives up
 * (returns null; the caller takes the JSON path) on anything where that is not
 * obviously true: non-integer or unsafe numbers (float text parsing is the
 * module's), lone surrogates, keys whose UTF-16 order may differ from UTF-8 order,
 * undefined members, non-plain objects, toJSON. The engine also checks the writer
 * against the module's own parser at load and disables it on any difference.
 */

import type { ProjectedObject } from "./input-projection.js";
import type { InputTemplate } from "./input-template.js";
import { F_UNSORTED, N_INT, T_ARRAY, T_BOOLEAN, T_NULL, T_NUMBER, T_OBJECT, T_SET, T_STRING } from "./abi.js";

class GiveUp extends Error {}
const giveUp = new GiveUp();

const TWO32 = 4294967296;
const LONE_SURROGATE = /\p{Surrogate}/u;
const NON_BMP_ORDER = /[\uD800-\uFFFF]/;

export interface SharedCells {
  readonly nullCell: number;
  readonly trueCell: number;
  readonly falseCell: number;
}

/**
 * A key list as seen (insertion order), its sorted order and, where the writer has
 * room for them, the keys' string cells in that order (written once, never
 * overwritten); inputs repeat a few shapes.
 */
interface Shape {
  readonly keys: readonly string[];
  readonly sorted: readonly string[];
  readonly cells: Uint32Array | null;
  /** The object's cells written by straight-line code for this shape (see compileShapes), or null. */
  readonly write: ((w: ValueWriter, o: Record<string, unknown>) => number) | null;
  /** Whether `cells` lie in room granted after the fixed key region (see grantKeyRoom). */
  readonly granted: boolean;
  /** Whether this shape (without cells) already asked for key room. */
  asked: boolean;
}
/** Shapes with more keys are written by the loop. */
const COMPILED_SHAPE_MAX = 32;
const ASCII = /^[\x00-\x7f]*$/;
const SHAPES_MAX = 32;
const CACHED_STRING_MAX = 64;
/** Strings one input may miss in the string cache before it stops looking (see cacheStrings). */
const CACHE_MISSES_PER_INPUT = 64;
/**
 * Strings one input may look up in the string cache at all (see cacheStrings): the cells
 * of this many cached strings (16 + at most 64 bytes each, 40 KB) fit in the region.
 */
const CACHE_LOOKUPS_PER_INPUT = 512;

export class ValueWriter {
  private shapes: Shape[] = [];
  private u8: Uint8Array;
  private u32: Uint32Array;
  private i32: Int32Array;
  private ptr = 0;
  /** Bytes of memory when the views were made. */
  private limit: number;
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly memory: WebAssembly.Memory,
    private readonly cells: SharedCells,
  ) {
    this.u8 = new Uint8Array(memory.buffer);
    this.limit = this.u8.length;
    this.u32 = new Uint32Array(memory.buffer);
    this.i32 = new Int32Array(memory.buffer);
  }

  /** Cells of `value` from `start` on: the value's address and the first free byte, or null. */
  write(value: unknown, start: number): { addr: number; end: number } | null {
    if (this.u8.length === 0) this.refresh();
    this.restartFullCache();
    this.ptr = start;
    try {
      const addr = this.value(value);
      return { addr, end: (this.ptr + 7) & ~7 };
    } catch (e) {
      if (e === giveUp) return null;
      throw e;
    }
  }

  /**
   * Like write, but objects at projected paths get only the projected members, with
   * their ready-made key cells (`node` null: the whole value). A member that is
   * absent or undefined is left out, as JSON.stringify leaves it out.
   */
  writeProjected(value: unknown, node: ProjectedObject | null, start: number): { addr: number; end: number } | null {
    if (this.u8.length === 0) this.refresh();
    this.restartFullCache();
    this.ptr = start;
    try {
      const addr = node === null ? this.value(value) : this.projected(value, node);
      return { addr, end: (this.ptr + 7) & ~7 };
    } catch (e) {
      if (e === giveUp) return null;
      throw e;
    }
  }

  private projected(v: unknown, node: ProjectedObject): number {
    if (node.compiled !== undefined) return node.compiled(this, v);
    if (typeof v !== "object" || v === null || Array.isArray(v)) return this.value(v);
    const o = v as Record<string, unknown>;
    this.plainObject(o);
    const { keys, keyCells, children, inherited } = node;
    const n = keys.length;
    const c = this.alloc(16);
    const data = n > 0 ? this.alloc(8 * n) : 0;
    let j = data >>> 2;
    let present = 0;
    for (let i = 0; i < n; i++) {
      const k = keys[i]!;
      const x = inherited[i] && !Object.prototype.hasOwnProperty.call(o, k) ? undefined : o[k];
      if (x === undefined) continue;
      const child = children[i]!;
      const va = child === null ? this.value(x) : this.projected(x, child);
      this.u32[j] = keyCells[i]!;
      this.u32[j + 1] = va;
      j += 2;
      present++;
    }
    this.cell(c, T_OBJECT, present, present, present > 0 ? data : 0);
    return c;
  }

  /**
   * Like writeProjected, through an input template (input-template.ts): the template's
   * cells are patched where the value has the projected shape, the rest is written
   * from `start` on.
   */
  writeTemplate(value: unknown, template: InputTemplate, start: number): { addr: number; end: number } | null {
    if (this.u8.length === 0) this.refresh();
    this.restartFullCache();
    this.ptr = start;
    try {
      const addr = template.write(this, value);
      return { addr, end: (this.ptr + 7) & ~7 };
    } catch (e) {
      if (e === giveUp) return null;
      throw e;
    }
  }

  /**
   * writeTemplate without its result object (the engine's per-call path): the root's
   * address, or 0 when the writer declines; the first free byte is then `end`.
   */
  templateCells(value: unknown, template: InputTemplate, start: number): number {
    if (this.u8.length === 0) this.refresh();
    this.restartFullCache();
    this.ptr = start;
    try {
      return template.write(this, value);
    } catch (e) {
      if (e === giveUp) return 0;
      throw e;
    }
  }

  /** The first free byte (8-aligned) after what the last write wrote. */
  get end(): number {
    return (this.ptr + 7) & ~7;
  }

  // The pieces of writeProjected and of templates that generated code (projected-writer.ts, input-template.ts) calls.

  /** Re-reads the memory's views (after the module grew it outside the writer). */
  sync(): void {
    if (this.u8.length === 0) this.refresh();
  }

  /** `value` written as writeProjected writes it under `node`, on the heap. */
  fresh(value: unknown, node: ProjectedObject): number {
    return this.projected(value, node);
  }

  /** The shared null and boolean cells. */
  get shared(): SharedCells {
    return this.cells;
  }

  /** Memory as 32-bit words (valid until the memory grows). */
  words(): Uint32Array {
    return this.u32;
  }

  /** One 32-bit word of memory. */
  word(at: number, value: number): void {
    this.u32[at >>> 2] = value;
  }

  /** A string cell header (its bytes at `ptr`). */
  stringCell(c: number, len: number, ptr: number): void {
    this.cell(c, T_STRING, len, ptr, 0);
  }

  /**
   * Rewrites the bytes of the string cell `c` (bytes right after it, `cap` of them) with `s`;
   * false unless `s` is ASCII and fits, and then the cell is left empty (length 0).
   * Four characters go in per 32-bit store and the ASCII check is one test at the end: reading the
   * characters is most of the cost, so the loop does nothing else per character.
   */
  slotString(c: number, cap: number, s: string): boolean {
    const len = s.length;
    if (len > cap) {
      this.u32[(c >>> 2) + 1] = 0;
      return false;
    }
    // The last word's unused bytes are the slot's own (cap is a multiple of 4); the length bounds what is read.
    const ascii = this.asciiWords(s, c + 16);
    this.u32[(c >>> 2) + 1] = ascii ? len : 0;
    return ascii;
  }

  /**
   * The characters of `s` from byte `at` (4-aligned), four per 32-bit store, up to 3 bytes
   * past its length in the last word (the caller's room); whether all were ASCII (if not, the
   * bytes are not its UTF-8). The ASCII check is one test at the end: reading the characters
   * is most of the cost, so the loop does nothing else per character.
   */
  private asciiWords(s: string, at: number): boolean {
    const len = s.length;
    const u32 = this.u32;
    let w = at >>> 2;
    let bits = 0;
    let i = 0;
    for (; i + 4 <= len; i += 4) {
      const a = s.charCodeAt(i);
      const b = s.charCodeAt(i + 1);
      const d = s.charCodeAt(i + 2);
      const e = s.charCodeAt(i + 3);
      bits |= a | b | d | e;
      u32[w++] = a | (b << 8) | (d << 16) | (e << 24);
    }
    if (i < len) {
      let x = 0;
      for (let k = 0; i < len; i++, k += 8) {
        const a = s.charCodeAt(i);
        bits |= a;
        x |= a << k;
      }
      u32[w] = x;
    }
    return bits < 0x80;
  }

  /** `n` in the number cell `c` when it is a safe integer, else as `whole` writes it. */
  slotNumber(c: number, n: number): number {
    if (!Number.isSafeInteger(n)) return this.number(n);
    const hi = Math.floor(n / TWO32);
    const i = c >>> 2;
    this.u32[i] = T_NUMBER | (N_INT << 8);
    this.u32[i + 1] = 0;
    this.u32[i + 2] = n - hi * TWO32;
    this.i32[i + 3] = hi;
    return c;
  }

  /** Gives up (JSON route) on objects JSON.stringify would not write as their own members. */
  plainObject(o: object): void {
    // toJSON first (as JSON.stringify reads it): its map check lets the prototype read fold.
    if (typeof (o as { toJSON?: unknown }).toJSON === "function") throw giveUp;
    const proto: unknown = Object.getPrototypeOf(o);
    if (proto !== Object.prototype && proto !== null) throw giveUp;
  }

  allocate(n: number): number {
    return this.alloc(n);
  }

  whole(v: unknown): number {
    return this.value(v);
  }

  /** A member (key cell, value cell) at `at`. */
  member(at: number, key: number, value: number): void {
    const i = at >>> 2;
    this.u32[i] = key;
    this.u32[i + 1] = value;
  }

  objectCell(c: number, n: number, data: number): void {
    this.cell(c, T_OBJECT, n, n, n > 0 ? data : 0);
  }

  /** Views of a memory that grew are detached (length 0): then they are made again. */
  private refresh(): void {
    this.u8 = new Uint8Array(this.memory.buffer);
    this.limit = this.u8.length;
    this.u32 = new Uint32Array(this.memory.buffer);
    this.i32 = new Int32Array(this.memory.buffer);
  }

  /** Four little-endian words of a 16-byte cell (wasm memory is little-endian, as are the hosts Node runs on). */
  private cell(c: number, w0: number, w1: number, w2: number, w3: number): void {
    const i = c >>> 2;
    const u32 = this.u32;
    u32[i] = w0;
    u32[i + 1] = w1;
    u32[i + 2] = w2;
    u32[i + 3] = w3;
  }

  private alloc(n: number): number {
    const a = (this.ptr + 7) & ~7;
    this.ptr = a + n;
    if (this.ptr > this.limit) {
      this.memory.grow(Math.ceil((this.ptr - this.limit) / 65536) + 1);
      this.refresh();
    }
    return a;
  }

  /** An if-chain of typeof tests: each compiles to a type check, where `switch (typeof v)` makes the type's name first. */
  private value(v: unknown): number {
    if (typeof v === "string") return this.string(v);
    if (typeof v === "number") return this.number(v);
    if (typeof v === "boolean") return v ? this.cells.trueCell : this.cells.falseCell;
    if (typeof v !== "object") throw giveUp;
    if (v === null) return this.cells.nullCell;
    if (Array.isArray(v)) return this.array(v);
    return this.object(v as Record<string, unknown>);
  }

  private number(n: number): number {
    if (!Number.isSafeInteger(n)) throw giveUp;
    const c = this.alloc(16);
    const hi = Math.floor(n / TWO32);
    this.cell(c, T_NUMBER | (N_INT << 8), 0, n - hi * TWO32, 0);
    this.i32[(c >>> 2) + 3] = hi;
    return c;
  }

  /** `key`: object keys must sort the same in UTF-16 and UTF-8 (no code unit >= U+D800). */
  /**
   * Keeps short strings' cells in [start, end) (memory the caller reserved below the
   * evaluation heap) and reuses them when the same text comes again, as the
   * runtime's versions, tool names and ids do from call to call. An input looks up its
   * strings only until CACHE_MISSES_PER_INPUT of them were not there (each one missing is
   * added): the rest of an input of many distinct strings goes to the heap without a
   * lookup, so its cost stays one write per string, not a lookup and a refill of the
   * region per call. It also stops after CACHE_LOOKUPS_PER_INPUT lookups, so the strings an
   * input repeated call after call can add all fit in the region: a wide input that comes
   * again settles into hits for its first strings and writes for the rest, where without
   * the bound it added 64 more strings per call and emptied the full region every few
   * dozen calls. When the region is full, the rest of that input's strings go to the heap and
   * the next input starts the region over: a cell is only needed for the evaluation it
   * was written for, but until that evaluation ends the cells it already points at must
   * not be overwritten.
   */
  cacheStrings(start: number, end: number): void {
    this.cache = { start, end, next: start, full: false, misses: 0, lookups: 0, cells: new Map() };
  }

  private restartFullCache(): void {
    const cache = this.cache;
    if (cache === null) return;
    cache.misses = 0;
    cache.lookups = 0;
    if (!cache.full) return;
    cache.cells.clear();
    cache.next = cache.start;
    cache.full = false;
  }

  /** Whether `addr` lies in the string cache (its cells are reused for other strings later). */
  inStringCache(addr: number): boolean {
    return this.cache !== null && addr >= this.cache.start && addr < this.cache.end;
  }

  private cache: { readonly start: number; readonly end: number; next: number; full: boolean; misses: number; lookups: number; readonly cells: Map<string, number> } | null = null;

  private string(s: string, key = false): number {
    const cache = this.cache;
    // Only ASCII text is kept, so a cached cell is also a valid object key.
    // Once the region is full or the input has missed or looked up often enough, its remaining strings skip the map lookup.
    if (cache !== null && !cache.full && cache.misses < CACHE_MISSES_PER_INPUT && cache.lookups < CACHE_LOOKUPS_PER_INPUT && s.length <= CACHED_STRING_MAX) {
      cache.lookups++;
      const known = cache.cells.get(s);
      if (known !== undefined) return known;
      cache.misses++;
      if (cache.next + 16 + 3 * CACHED_STRING_MAX + 8 > cache.end) {
        cache.full = true;
        return this.uncachedString(s, key);
      }
      const ptr = this.ptr;
      this.ptr = cache.next;
      const c = this.uncachedString(s, key);
      const ascii = this.ptr - this.u32[(c >>> 2) + 2]! === s.length;
      cache.next = (this.ptr + 7) & ~7;
      this.ptr = ptr;
      if (ascii) cache.cells.set(s, c);
      return c;
    }
    return this.uncachedString(s, key);
  }

  private uncachedString(s: string, key: boolean): number {
    const c = this.alloc(16);
    const len = s.length;
    const bytes = this.ptr;
    let ascii = true;
    if (bytes + len * 3 > this.limit) {
      this.alloc(len * 3);
      this.ptr = bytes;
    }
    const u8 = this.u8;
    if ((bytes & 3) === 0) {
      // At least len * 3 bytes from `bytes` are free: room for the last word's spare bytes.
      ascii = this.asciiWords(s, bytes);
    } else {
      for (let i = 0; i < len; i++) {
        const ch = s.charCodeAt(i);
        if (ch >= 0x80) {
          ascii = false;
          break;
        }
        u8[bytes + i] = ch;
      }
    }
    let written = len;
    if (!ascii) {
      if (key ? NON_BMP_ORDER.test(s) : LONE_SURROGATE.test(s)) throw giveUp;
      written = this.encoder.encodeInto(s, u8.subarray(bytes, bytes + len * 3)).written;
    }
    this.ptr += written;
    this.cell(c, T_STRING, written, bytes, 0);
    return c;
  }

  private array(a: readonly unknown[]): number {
    const n = a.length;
    const c = this.alloc(16);
    const data = n > 0 ? this.alloc(4 * n) : 0;
    this.cell(c, T_ARRAY, n, n, data);
    for (let i = 0; i < n; i++) {
      const x = a[i];
      if (x === undefined) throw giveUp;
      const addr = this.value(x);
      this.u32[(data >>> 2) + i] = addr;
    }
    return c;
  }

  /**
   * Keeps the key cells of object shapes in [start, end) (memory the caller reserved
   * below the evaluation heap for as long as the writer is used). Cells there are
   * written once; when the region is full, later shapes' keys are written per object.
   */
  cacheKeys(start: number, end: number): void {
    this.keyRegion = { next: start, end };
    this.fixedKeyRegion = this.keyRegion;
  }

  private keyRegion: { next: number; readonly end: number } | null = null;
  private fixedKeyRegion: { next: number; readonly end: number } | null = null;

  /**
   * Bytes of key cells that shapes seen more than once found no room for in the key
   * region; the engine may grant them (grantKeyRoom) before the next input, so the keys
   * of a wide object that comes again are written once, not on every call.
   */
  keyRoomWanted = 0;

  /**
   * More key-cell room, [start, end) (kept below the evaluation heap until
   * dropGrantedKeys): shapes without cells are made again with cells there.
   */
  grantKeyRoom(start: number, end: number): void {
    this.keyRoomWanted = 0;
    this.keyRegion = { next: start, end };
    this.shapes = this.shapes.filter((s) => s.cells !== null);
  }

  /** Declines the wanted room: those shapes keep writing their keys per object. */
  refuseKeyRoom(): void {
    this.keyRoomWanted = 0;
  }

  /**
   * Forgets the shapes whose cells lie in granted room (the engine reclaimed it) and returns to
   * the fixed key region; shapes without cells are forgotten too, so they may ask again.
   */
  dropGrantedKeys(): void {
    this.keyRoomWanted = 0;
    this.keyRegion = this.fixedKeyRegion;
    this.shapes = this.shapes.filter((s) => !s.granted && s.cells !== null);
  }

  /**
   * Whether objects of a known shape are written by code made for that shape (one
   * named property load per key: no keyed loads, no loop); false where code
   * generation is forbidden.
   */
  compileShapes = false;

  /** Gives up (the caller takes the JSON route). */
  decline(): never {
    throw giveUp;
  }

  /** Code-unit order equals UTF-8 byte order below U+D800, which string(k, true) ensures. */
  private shape(keys: string[]): Shape {
    const n = keys.length;
    outer: for (const shape of this.shapes) {
      const k = shape.keys;
      if (k.length !== n) continue;
      for (let i = 0; i < n; i++) if (k[i] !== keys[i]) continue outer;
      if (shape.cells === null && !shape.asked) {
        // Seen again without key cells: ask for room (keyCellBytes is -1 for keys that are never kept).
        shape.asked = true;
        const bytes = this.keyRegion === null ? -1 : keyCellBytes(shape.sorted);
        if (bytes > 0) this.keyRoomWanted += bytes;
      }
      return shape;
    }
    const sorted = [...keys].sort();
    if (this.shapes.length >= SHAPES_MAX) this.shapes.shift();
    const cells = this.keyCells(sorted);
    const granted = cells !== null && this.keyRegion !== this.fixedKeyRegion;
    const shape = { keys, sorted, cells, write: this.compileShapes && cells !== null ? compileShape(sorted, cells) : null, granted, asked: false };
    this.shapes.push(shape);
    return shape;
  }

  /** Persistent cells of ASCII keys in the key region, or null (no region, no room, other keys). */
  private keyCells(keys: readonly string[]): Uint32Array | null {
    const region = this.keyRegion;
    if (region === null) return null;
    const bytes = keyCellBytes(keys);
    if (bytes < 0 || region.next + bytes > region.end) return null;
    const cells = new Uint32Array(keys.length);
    const ptr = this.ptr;
    this.ptr = region.next;
    keys.forEach((k, i) => (cells[i] = this.uncachedString(k, true)));
    region.next = (this.ptr + 7) & ~7;
    this.ptr = ptr;
    return cells;
  }

  private object(o: Record<string, unknown>): number {
    // toJSON first (as JSON.stringify reads it): its map check lets the prototype read fold.
    if (typeof (o as { toJSON?: unknown }).toJSON === "function") throw giveUp;
    const proto: unknown = Object.getPrototypeOf(o);
    if (proto !== Object.prototype && proto !== null) throw giveUp;
    const shape = this.shape(Object.keys(o));
    if (shape.write !== null) return shape.write(this, o);
    const keys = shape.sorted;
    const cells = shape.cells;
    const n = keys.length;
    const c = this.alloc(16);
    const data = n > 0 ? this.alloc(8 * n) : 0;
    this.cell(c, T_OBJECT, n, n, data);
    for (let i = 0; i < n; i++) {
      const k = keys[i]!;
      const x = o[k];
      if (x === undefined) throw giveUp;
      const ka = cells !== null ? cells[i]! : this.string(k, true);
      const va = this.value(x);
      const j = (data >>> 2) + 2 * i;
      this.u32[j] = ka;
      this.u32[j + 1] = va;
    }
    return c;
  }
}

/** Bytes the key cells of `keys` take in the key region (8-aligned strings after 16-byte cells); -1 unless all are ASCII. */
function keyCellBytes(keys: readonly string[]): number {
  let bytes = 0;
  for (const k of keys) {
    if (!ASCII.test(k)) return -1;
    bytes += 16 + ((k.length + 7) & ~7);
  }
  return bytes;
}

/**
 * The writer of one object shape: what the loop in ValueWriter.object writes for
 * these (sorted) keys with these key cells; null when code generation is
 * unavailable. Only key names (as JSON string literals) and integer cell addresses
 * enter the source.
 */
function compileShape(sorted: readonly string[], cells: Uint32Array): ((w: ValueWriter, o: Record<string, unknown>) => number) | null {
  const n = sorted.length;
  if (n === 0 || n > COMPILED_SHAPE_MAX) return null;
  const lines: string[] = [`const c = w.allocate(16);`, `const d = w.allocate(${8 * n});`];
  sorted.forEach((k, i) => {
    lines.push(`const x${i} = o[${JSON.stringify(k)}];`, `if (x${i} === undefined) w.decline();`);
  });
  sorted.forEach((_, i) => lines.push(`const v${i} = w.whole(x${i});`));
  // Values are stored once all are written: writing may grow memory (addresses stay valid, views do not).
  lines.push(`w.objectCell(c, ${n}, d);`, `const u = w.words();`, `const j = d >>> 2;`);
  sorted.forEach((_, i) => {
    if (!Number.isInteger(cells[i])) throw new Error("key cell is not an address");
    lines.push(`u[j + ${2 * i}] = ${cells[i]};`, `u[j + ${2 * i + 1}] = v${i};`);
  });
  lines.push(`return c;`);
  try {
    return new Function("w", "o", lines.join("\n")) as (w: ValueWriter, o: Record<string, unknown>) => number;
  } catch {
    return null;
  }
}

/** Returned by ValueReader when a value must go through opa_json_dump instead. */
export const DECLINED: unique symbol = Symbol("declined");

/**
 * Reads value cells back as the JS value `JSON.parse(opa_json_dump(addr))` would
 * give, declining (DECLINED) where the module's printing decides the result:
 * floats and big numbers, non-string object keys, `__proto__` keys.
 */
export class ValueReader {
  private readonly decoder = new TextDecoder();

  constructor(private readonly memory: WebAssembly.Memory) {}

  read(addr: number): unknown {
    try {
      return this.value(new Uint8Array(this.memory.buffer), new Uint32Array(this.memory.buffer), new Int32Array(this.memory.buffer), addr);
    } catch (e) {
      if (e === giveUp) return DECLINED;
      throw e;
    }
  }

  private value(u8: Uint8Array, u32: Uint32Array, i32: Int32Array, a: number): unknown {
    const w = a >>> 2;
    switch (u8[a]) {
      case T_NULL:
        return null;
      case T_BOOLEAN:
        return u8[a + 1] !== 0;
      case T_NUMBER: {
        if (u8[a + 1] !== N_INT) throw giveUp;
        const n = i32[w + 3]! * TWO32 + u32[w + 2]!;
        if (!Number.isSafeInteger(n)) throw giveUp;
        return n;
      }
      case T_STRING:
        return this.string(u8, u32[w + 2]!, u32[w + 1]!);
      case T_ARRAY:
      case T_SET: {
        // entries appended out of order are sorted by the module's own accessors
        if ((u8[a + 1]! & F_UNSORTED) !== 0) throw giveUp;
        const n = u32[w + 1]!;
        const data = u32[w + 3]! >>> 2;
        const out = new Array<unknown>(n);
        for (let i = 0; i < n; i++) out[i] = this.value(u8, u32, i32, u32[data + i]!);
        return out;
      }
      case T_OBJECT: {
        if ((u8[a + 1]! & F_UNSORTED) !== 0) throw giveUp;
        const n = u32[w + 1]!;
        const data = u32[w + 3]! >>> 2;
        const out: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const k = u32[data + 2 * i]!;
          if (u8[k] !== T_STRING) throw giveUp;
          const key = this.string(u8, u32[(k >>> 2) + 2]!, u32[(k >>> 2) + 1]!);
          if (key === "__proto__") throw giveUp;
          out[key] = this.value(u8, u32, i32, u32[data + 2 * i + 1]!);
        }
        return out;
      }
      default:
        throw giveUp;
    }
  }

  private string(u8: Uint8Array, ptr: number, len: number): string {
    if (len < 64) {
      let s = "";
      for (let i = 0; i < len; i++) {
        const c = u8[ptr + i]!;
        if (c >= 0x80) return this.decoder.decode(u8.subarray(ptr, ptr + len));
        s += String.fromCharCode(c);
      }
      return s;
    }
    return this.decoder.decode(u8.subarray(ptr, ptr + len));
  }
}
