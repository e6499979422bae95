/**
 * Decision ids: UUIDv7 (RFC 9562), a millisecond timestamp followed by random bits. They are
 * unique like random UUIDs, and increasing in time, so the decision log's unique index on
 * them grows at its end instead of at random places (inserts cost about half).
 *
 * An id is put together from two texts made ahead: the timestamp part (`tttttttt-tttt-`),
 * kept while the millisecond stays the same, and the hex of a pool of random bytes with the
 * version and variant bits already set, refilled from the CSPRNG every 410 ids; each id is
 * the prefix and three slices of that hex.
 */
import { randomFillSync } from "node:crypto";

/** Random bytes one id takes: bytes 6..15 of the UUID (the low nibble of 6 and the low 6 bits of 8 are random). */
const RANDOM_BYTES = 10;
const POOL_IDS = 410;

/** A source of decision ids; `fill` writes random bytes into its argument. */
export class DecisionIds {
  readonly #fill: (bytes: Uint8Array) => void;
  readonly #pool = Buffer.alloc(RANDOM_BYTES * POOL_IDS);
  #hex = "";
  #next = POOL_IDS;
  #lastMs = -1;
  #prefix = "";

  constructor(fill: (bytes: Uint8Array) => void) {
    this.#fill = fill;
  }

  next(nowMs: number): string {
    if (this.#next >= POOL_IDS) this.#refill();
    const at = this.#next * 2 * RANDOM_BYTES;
    this.#next++;
    const ms = Math.max(0, Math.floor(nowMs)) % 2 ** 48;
    if (ms !== this.#lastMs) {
      const t = ms.toString(16).padStart(12, "0");
      this.#prefix = `${t.slice(0, 8)}-${t.slice(8)}-`;
      this.#lastMs = ms;
    }
    const h = this.#hex;
    return this.#prefix + h.slice(at, at + 4) + "-" + h.slice(at + 4, at + 8) + "-" + h.slice(at + 8, at + 20);
  }

  #refill(): void {
    const pool = this.#pool;
    this.#fill(pool);
    for (let o = 0; o < pool.length; o += RANDOM_BYTES) {
      pool[o] = 0x70 | (pool[o]! & 0x0f); // version 7
      pool[o + 2] = 0x80 | (pool[o + 2]! & 0x3f); // variant 0b10
    }
    this.#hex = pool.toString("hex");
    this.#next = 0;
  }
}

const ids = new DecisionIds((b) => void randomFillSync(b));

export function decisionId(nowMs: number = Date.now()): string {
  return ids.next(nowMs);
}
