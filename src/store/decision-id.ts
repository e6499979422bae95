/**
 * Decision ids: UUIDv7 (RFC 9562), a millisecond timestamp followed by random bits. They are
 * unique like random UUIDs, and increasing in time, so the decision log's unique index on
 * them grows at its end instead of at random places (inserts cost about half).
 */
import { randomFillSync } from "node:crypto";

const pool = Buffer.alloc(16 * 256);
let next = pool.length;

export function decisionId(nowMs: number = Date.now()): string {
  if (next >= pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const b = pool.subarray(next, next + 16);
  next += 16;
  b.writeUIntBE(Math.max(0, Math.floor(nowMs)) % 2 ** 48, 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
