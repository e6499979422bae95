/**
 * The UTF-8 JSON bytes of the parts of an input a compiled entrypoint can read (its
 * `toolgate.input_paths` tree, input-projection.ts), for the SDK engine: the SDK
 * takes pre-encoded JSON as an ArrayBuffer, so the input is serialised only as far
 * as the policy looks, straight into bytes (no JSON.stringify of the whole input,
 * no separate encoding pass). The module projects while it parses anyway, so a
 * member left out here is one the policy could never see.
 *
 * The bytes parse to JSON.stringify's view of the value cut down to the tree. Where
 * that view could differ from the value's own members (a `toJSON` method, a
 * prototype other than Object's, a boxed primitive), the value goes through
 * JSON.stringify whole: writing more than the tree names is always safe, writing
 * less never is.
 */
import type { InputPaths } from "./abi.js";

/** The value's projected JSON as an exactly sized buffer (reused: see jsonProjection), or undefined where JSON.stringify gives undefined. */
export type JsonProjection = (value: unknown) => ArrayBuffer | undefined;

const encoder = new TextEncoder();
const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Whether JSON.stringify writes `v` (an object) as exactly its own enumerable members, or its elements. */
function isPlain(v: object): boolean {
  if (typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(v)) return true;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A growable byte buffer that JSON is written into, reused from call to call. */
class JsonBytes {
  buf = new Uint8Array(4096);
  pos = 0;

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** A few bytes (member heads): a loop, since TypedArray.prototype.set costs more than it copies here. */
  bytes(b: Uint8Array): void {
    const n = b.length;
    this.room(n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) buf[p++] = b[i]!;
    this.pos = p;
  }

  byte(c: number): void {
    this.room(1);
    this.buf[this.pos++] = c;
  }

  /** Text known to be ASCII without anything JSON escapes (numbers, literals). */
  ascii(s: string): void {
    const n = s.length;
    this.room(n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Any text, through the encoder (non-ASCII, escapes). */
  utf8(s: string): void {
    this.room(s.length * 3);
    this.pos += encoder.encodeInto(s, this.buf.subarray(this.pos)).written;
  }

  string(s: string): void {
    const n = s.length;
    this.room(n + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      // Escapes and non-ASCII (including lone surrogates, which JSON.stringify escapes) take the general route.
      if (c < 0x20 || c >= 0x80 || c === 0x22 || c === 0x5c) return this.utf8(JSON.stringify(s));
      buf[p++] = c;
    }
    buf[p++] = 0x22;
    this.pos = p;
  }

  /** `v` whole, as JSON.stringify writes it; false where it writes nothing (undefined, functions, symbols). */
  value(v: unknown): boolean {
    switch (typeof v) {
      case "string":
        this.string(v);
        return true;
      case "number":
        this.ascii(Number.isFinite(v) ? String(v) : "null");
        return true;
      case "boolean":
        this.ascii(v ? "true" : "false");
        return true;
      case "object":
        if (v === null) this.ascii("null");
        else if (!isPlain(v)) return this.stringified(v);
        else if (Array.isArray(v)) this.array(v);
        else this.object(v as Record<string, unknown>);
        return true;
      default:
        // undefined, functions, symbols: nothing; bigint: JSON.stringify's TypeError.
        return this.stringified(v);
    }
  }

  private stringified(v: unknown): boolean {
    const text = JSON.stringify(v) as string | undefined;
    if (text === undefined) return false;
    this.utf8(text);
    return true;
  }

  private array(a: readonly unknown[]): void {
    this.byte(0x5b);
    for (let i = 0; i < a.length; i++) {
      if (i > 0) this.byte(0x2c);
      if (!this.value(a[i])) this.ascii("null");
    }
    this.byte(0x5d);
  }

  private object(o: Record<string, unknown>): void {
    this.byte(0x7b);
    let first = true;
    for (const k of Object.keys(o)) {
      const at = this.pos;
      if (!first) this.byte(0x2c);
      this.string(k);
      this.byte(0x3a);
      // A member JSON.stringify leaves out is taken back, with its comma.
      if (this.value(o[k])) first = false;
      else this.pos = at;
    }
    this.byte(0x7d);
  }
}

interface Member {
  readonly key: string;
  /** `"key":` encoded once. */
  readonly head: Uint8Array;
  /** A name Object.prototype also has (e.g. "constructor") is read only when it is the object's own. */
  readonly inherited: boolean;
  /** null: the member is written whole. */
  readonly node: Member[] | null;
}

function membersOf(tree: InputPaths): Member[] | null {
  if (tree === true) return null;
  return Object.keys(tree).map((key) => ({
    key,
    head: encoder.encode(`${JSON.stringify(key)}:`),
    inherited: key in Object.prototype,
    node: membersOf(tree[key]!),
  }));
}

/** Writes `v` under `node`; false where nothing is written. */
function writeProjected(out: JsonBytes, v: unknown, node: readonly Member[]): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v) || !isPlain(v)) return out.value(v);
  const o = v as Record<string, unknown>;
  out.byte(0x7b);
  let first = true;
  for (const m of node) {
    const x = m.inherited && !hasOwn(o, m.key) ? undefined : o[m.key];
    if (x === undefined) continue;
    const at = out.pos;
    if (!first) out.byte(0x2c);
    out.bytes(m.head);
    if ((m.node === null ? out.value(x) : writeProjected(out, x, m.node))) first = false;
    else out.pos = at;
  }
  out.byte(0x7d);
  return true;
}

/**
 * Exactly sized buffers, one per length (direct-mapped by length): inputs of one shape come in
 * a few lengths, so most calls copy into a buffer made earlier instead of allocating one.
 */
class SizedBuffers {
  readonly #slots: (Uint8Array | null)[] = new Array<Uint8Array | null>(64).fill(null);

  copy(bytes: Uint8Array, n: number): ArrayBuffer {
    const i = n & 63;
    let view = this.#slots[i] ?? null;
    if (view === null || view.length !== n) {
      view = new Uint8Array(n);
      this.#slots[i] = view;
    }
    view.set(bytes.subarray(0, n));
    return view.buffer as ArrayBuffer;
  }
}

/**
 * The returned buffer is reused by a later call of the same projection that writes as many
 * bytes: use it (the SDK copies it into the module at once) before calling again.
 */
export function jsonProjection(tree: InputPaths): JsonProjection {
  const node = membersOf(tree);
  const out = new JsonBytes();
  const buffers = new SizedBuffers();
  return (v) => {
    out.pos = 0;
    const written = node === null ? out.value(v) : writeProjected(out, v, node);
    return written ? buffers.copy(out.buf, out.pos) : undefined;
  };
}
