/**
 * The generated module's static data: ready-made value cells (null, booleans, strings,
 * integers, ground arrays, sets and objects) in the runtime's layout (RUNTIME-API.md
 * section 2) and NUL-terminated C strings for error messages. Cells here are never
 * mutated: generated code only reads them, and runtime functions copy before they
 * change a collection. Collections carry no flags (no hash index, sorted), so even
 * the runtime's readers never write to them.
 */
import type { ConstValue } from "../../plan/ir.js";
import { compareConst, sortedMembers } from "./const-order.js";
import { T_ARRAY, T_BOOLEAN, T_NULL, T_NUMBER, T_OBJECT, T_SET, T_STRING } from "../../../src/policy/abi.js";


export class StaticData {
  private readonly bytes: number[] = [];
  private readonly strings = new Map<string, number>();
  private readonly ints = new Map<number, number>();
  private readonly cstrings = new Map<string, number>();
  private readonly values = new Map<string, number>();
  private readonly scalars = new Map<string, number>();
  private readonly enc = new TextEncoder();

  /** `base` is the absolute address the blob will be placed at (16-aligned). */
  constructor(readonly base: number) {}

  private align(n: number): void {
    while (this.bytes.length % n !== 0) this.bytes.push(0);
  }

  private u32(at: number, v: number): void {
    for (let i = 0; i < 4; i++) this.bytes[at + i] = (v >>> (8 * i)) & 0xff;
  }

  /** Address of a string value cell. */
  string(s: string): number {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    const utf8 = this.enc.encode(s);
    const dataAt = this.base + this.bytes.length;
    this.bytes.push(...utf8);
    this.align(8);
    const cell = this.bytes.length;
    for (let i = 0; i < 16; i++) this.bytes.push(0);
    this.bytes[cell] = T_STRING;
    this.u32(cell + 4, utf8.length);
    this.u32(cell + 8, dataAt);
    const addr = this.base + cell;
    this.strings.set(s, addr);
    return addr;
  }

  /** Address of an integer number cell (repr 1, i64). */
  int(n: number): number {
    const known = this.ints.get(n);
    if (known !== undefined) return known;
    this.align(8);
    const cell = this.bytes.length;
    for (let i = 0; i < 16; i++) this.bytes.push(0);
    this.bytes[cell] = T_NUMBER;
    this.bytes[cell + 1] = 1;
    let big = BigInt.asUintN(64, BigInt(n));
    for (let i = 0; i < 8; i++) {
      this.bytes[cell + 8 + i] = Number(big & 0xffn);
      big >>= 8n;
    }
    const addr = this.base + cell;
    this.ints.set(n, addr);
    return addr;
  }

  /** Address of the null cell or of a boolean cell. */
  scalar(v: null | boolean): number {
    const id = String(v);
    const known = this.scalars.get(id);
    if (known !== undefined) return known;
    this.align(8);
    const cell = this.bytes.length;
    for (let i = 0; i < 8; i++) this.bytes.push(0);
    this.bytes[cell] = v === null ? T_NULL : T_BOOLEAN;
    if (v === true) this.bytes[cell + 1] = 1;
    const addr = this.base + cell;
    this.scalars.set(id, addr);
    return addr;
  }

  /** Address of the cell of a ground value; sets and object keys are laid out in the runtime's order. */
  value(v: ConstValue): number {
    switch (v.type) {
      case "null": return this.scalar(null);
      case "boolean": return this.scalar(v.value);
      case "number": return this.int(v.value);
      case "string": return this.string(v.value);
      default: break;
    }
    const id = JSON.stringify(v);
    const known = this.values.get(id);
    if (known !== undefined) return known;
    let tag: number;
    let slots: number[];
    if (v.type === "object") {
      tag = T_OBJECT;
      const entries = [...v.items].sort((a, b) => compareConst(a[0], b[0]));
      slots = entries.flatMap(([k, x]) => [this.value(k), this.value(x)]);
    } else {
      tag = v.type === "array" ? T_ARRAY : T_SET;
      const items = v.type === "array" ? v.items : sortedMembers(v.items);
      slots = items.map((x) => this.value(x));
    }
    const len = v.type === "object" ? slots.length / 2 : slots.length;
    this.align(8);
    const ptr = slots.length === 0 ? 0 : this.base + this.bytes.length;
    for (const a of slots) {
      const at = this.bytes.length;
      for (let i = 0; i < 4; i++) this.bytes.push(0);
      this.u32(at, a);
    }
    this.align(8);
    const cell = this.bytes.length;
    for (let i = 0; i < 16; i++) this.bytes.push(0);
    this.bytes[cell] = tag;
    this.u32(cell + 4, len);
    this.u32(cell + 8, len);
    this.u32(cell + 12, ptr);
    const addr = this.base + cell;
    this.values.set(id, addr);
    return addr;
  }

  /** Address of a NUL-terminated ASCII string (non-ASCII is escaped: the SDK decodes bytes as Latin-1). */
  cstring(s: string): number {
    const known = this.cstrings.get(s);
    if (known !== undefined) return known;
    const addr = this.base + this.bytes.length;
    for (const ch of s) {
      const cp = ch.codePointAt(0)!;
      if (cp >= 0x20 && cp < 0x7f) this.bytes.push(cp);
      else for (const b of this.enc.encode(`\\u{${cp.toString(16)}}`)) this.bytes.push(b);
    }
    this.bytes.push(0);
    this.cstrings.set(s, addr);
    return addr;
  }

  /** Raw bytes (for opa_number_ref): returns [address, length]. */
  raw(s: string): [number, number] {
    const utf8 = this.enc.encode(s);
    const addr = this.base + this.bytes.length;
    this.bytes.push(...utf8);
    return [addr, utf8.length];
  }

  /** `n` zero bytes (coverage flags): returns their address. */
  zeros(n: number): number {
    const addr = this.base + this.bytes.length;
    for (let i = 0; i < n; i++) this.bytes.push(0);
    return addr;
  }

  blob(): Uint8Array {
    this.align(16);
    return new Uint8Array(this.bytes);
  }
}
