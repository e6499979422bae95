/**
 * Walks a function body's instructions (MVP, sign extension, saturating float to
 * int, bulk memory, reference types; no SIMD) and records where each function
 * index immediate sits, so the linker can renumber calls without decoding again,
 * and which constants it holds (candidate static data addresses).
 */
import { ByteReader, LinkError } from "./bytes.js";

export interface CallSite {
  /** Byte offset of the index's LEB128 inside the body. */
  readonly at: number;
  /** Byte offset just after it. */
  readonly end: number;
  /** The function index it holds. */
  readonly callee: number;
}

const CALL = 0x10;
const REF_FUNC = 0xd2;

export interface ScannedBody {
  readonly calls: CallSite[];
  /**
   * Every `i32.const` value and memory access offset (unsigned), in order: the
   * candidates for static data addresses the body uses.
   */
  readonly constants: number[];
}

export function scanCallSites(body: Uint8Array): CallSite[] {
  return scanBody(body).calls;
}

export function scanBody(body: Uint8Array): ScannedBody {
  const r = new ByteReader(body);
  for (let groups = r.u32(); groups > 0; groups--) {
    r.u32();
    r.byte();
  }
  const calls: CallSite[] = [];
  const constants: number[] = [];
  while (!r.done) {
    const op = r.byte();
    if (op === CALL || op === REF_FUNC) {
      const at = r.pos;
      const callee = r.u32();
      calls.push({ at, end: r.pos, callee });
      continue;
    }
    if (op === I32_CONST) {
      constants.push(r.s32() >>> 0);
      continue;
    }
    skipImmediates(r, op, constants);
  }
  return { calls, constants };
}

const I32_CONST = 0x41;

function skipImmediates(r: ByteReader, op: number, offsets: number[]): void {
  if (op >= 0x45 && op <= 0xc4) return; // numeric instructions without immediates
  switch (op) {
    case 0x00: case 0x01: case 0x05: case 0x0b: case 0x0f: case 0x1a: case 0x1b: case 0xd1:
      return;
    case 0x02: case 0x03: case 0x04:
      blockType(r);
      return;
    case 0x0c: case 0x0d: case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: case 0x25: case 0x26:
      r.u32();
      return;
    case 0x0e:
      for (let n = r.u32(); n >= 0; n--) r.u32(); // the targets, then the default
      return;
    case 0x11:
      r.u32();
      r.u32();
      return;
    case 0x1c:
      r.skip(r.u32());
      return;
    case 0x3f: case 0x40: case 0xd0:
      r.byte();
      return;
    case 0x41: case 0x42:
      r.skipLeb();
      return;
    case 0x43:
      r.skip(4);
      return;
    case 0x44:
      r.skip(8);
      return;
    case 0xfc:
      prefixed(r, r.u32());
      return;
  }
  if (op >= 0x28 && op <= 0x3e) {
    const align = r.u32();
    if ((align & 0x40) !== 0) r.u32(); // memory index (multi-memory)
    offsets.push(r.u32());
    return;
  }
  throw new LinkError(`runtime library: unsupported opcode 0x${op.toString(16)} at body byte ${r.pos - 1}`);
}

function blockType(r: ByteReader): void {
  const b = r.bytes[r.pos]!;
  if (b === 0x40 || (b >= 0x7b && b <= 0x7f) || b === 0x70 || b === 0x6f) r.byte();
  else r.skipLeb(); // a type index (s33)
}

function prefixed(r: ByteReader, sub: number): void {
  if (sub <= 7) return; // saturating truncations
  switch (sub) {
    case 8: r.u32(); r.byte(); return; // memory.init data, mem
    case 9: r.u32(); return; // data.drop
    case 10: r.byte(); r.byte(); return; // memory.copy
    case 11: r.byte(); return; // memory.fill
    case 12: case 14: r.u32(); r.u32(); return; // table.init, table.copy
    case 13: case 15: case 16: case 17: r.u32(); return;
  }
  throw new LinkError(`runtime library: unsupported opcode 0xfc ${sub}`);
}
