/**
 * Wasm binary primitives: a growable byte writer with LEB128 encoders, a reader
 * with the matching decoders, and the section and value-type codes the linker uses.
 */

export const SECTION = {
  custom: 0,
  type: 1,
  import: 2,
  function: 3,
  table: 4,
  memory: 5,
  global: 6,
  export: 7,
  start: 8,
  element: 9,
  code: 10,
  data: 11,
  dataCount: 12,
} as const;

/** Value type codes (and the empty block type). */
export const VALTYPE = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c } as const;
export const EMPTY_BLOCK_TYPE = 0x40;
export const FUNC_TYPE_FORM = 0x60;

/** Import / export kinds. */
export const EXTERNAL = { function: 0, table: 1, memory: 2, global: 3 } as const;

export class ByteWriter {
  private buf = new Uint8Array(256);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  byte(b: number): this {
    this.reserve(1);
    this.buf[this.length++] = b;
    return this;
  }

  bytes(bs: Uint8Array): this {
    this.reserve(bs.length);
    this.buf.set(bs, this.length);
    this.length += bs.length;
    return this;
  }

  u32(v: number): this {
    let x = v >>> 0;
    do {
      const b = x & 0x7f;
      x >>>= 7;
      this.byte(x === 0 ? b : b | 0x80);
    } while (x !== 0);
    return this;
  }

  s32(v: number): this {
    return this.s64(BigInt(v | 0));
  }

  s64(v: bigint): this {
    let x = BigInt.asIntN(64, v);
    for (;;) {
      const b = Number(x & 0x7fn);
      x >>= 7n;
      const done = (x === 0n && (b & 0x40) === 0) || (x === -1n && (b & 0x40) !== 0);
      this.byte(done ? b : b | 0x80);
      if (done) return this;
    }
  }

  f64(v: number): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, v, true);
    return this.bytes(b);
  }

  name(s: string): this {
    const utf8 = new TextEncoder().encode(s);
    return this.u32(utf8.length).bytes(utf8);
  }

  /** A length-prefixed vector of already-encoded bytes. */
  sized(inner: ByteWriter | Uint8Array): this {
    const bs = inner instanceof ByteWriter ? inner.finish() : inner;
    return this.u32(bs.length).bytes(bs);
  }

  /** Overwrites one byte already written. */
  patch(at: number, b: number): void {
    this.buf[at] = b;
  }

  /** Drops everything from `at` on. */
  truncate(at: number): void {
    this.length = at;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

export class LinkError extends Error {
  override name = "LinkError";
}
export function isLinkError(e: unknown): e is LinkError {
  return e instanceof Error && e.name === "LinkError";
}

export class ByteReader {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly end = bytes.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  byte(): number {
    if (this.pos >= this.end) throw new LinkError(`unexpected end of Wasm input at byte ${this.pos}`);
    return this.bytes[this.pos++]!;
  }

  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
      if (shift >= 35) throw new LinkError(`LEB128 too long at byte ${this.pos}`);
    }
  }

  /** Skips a signed LEB128 of any width. */
  skipLeb(): void {
    while ((this.byte() & 0x80) !== 0);
  }

  /** Reads a signed 32-bit LEB128. */
  s32(): number {
    let result = 0;
    let shift = 0;
    let b: number;
    do {
      b = this.byte();
      result |= (b & 0x7f) << shift;
      shift += 7;
    } while ((b & 0x80) !== 0);
    if (shift < 32 && (b & 0x40) !== 0) result |= -1 << shift;
    return result | 0;
  }

  skip(n: number): void {
    this.pos += n;
    if (this.pos > this.end) throw new LinkError(`unexpected end of Wasm input at byte ${this.end}`);
  }

  slice(from: number, to: number): Uint8Array {
    return this.bytes.subarray(from, to);
  }

  name(): string {
    const n = this.u32();
    const s = new TextDecoder().decode(this.bytes.subarray(this.pos, this.pos + n));
    this.skip(n);
    return s;
  }
}
