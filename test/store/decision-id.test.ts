import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DecisionIds, decisionId } from "../../src/store/decision-id.js";

/** The UUIDv7 layout written with Buffer operations: the timestamp into bytes 0..5, then hex and dashes. */
function reference(nowMs: number, random: Uint8Array): string {
  const b = Buffer.alloc(16);
  b.set(random.subarray(0, 10), 6);
  b.writeUIntBE(Math.max(0, Math.floor(nowMs)) % 2 ** 48, 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("decision ids", () => {
  it("formats each time and its 10 random bytes as the UUIDv7 layout does, across pool refills and repeated milliseconds", () => {
    const drawn: Buffer[] = [];
    const source = new DecisionIds((b) => {
      randomBytes(b.length).copy(Buffer.from(b.buffer, b.byteOffset, b.length));
      // Edge bytes at the start of every pool: all zero, all one, bits around the version and variant.
      Buffer.alloc(10, 0).copy(Buffer.from(b.buffer, b.byteOffset, b.length), 0);
      Buffer.alloc(10, 0xff).copy(Buffer.from(b.buffer, b.byteOffset, b.length), 10);
      Buffer.from([0x0f, 0xf0, 0x3f, 0xc0, 1, 2, 3, 4, 5, 6]).copy(Buffer.from(b.buffer, b.byteOffset, b.length), 20);
      for (let o = 0; o < b.length; o += 10) drawn.push(Buffer.from(b.subarray(o, o + 10)));
    });
    const times = [0, 0, 1, 255, 256, 256, 1_764_000_000_000, 1_764_000_000_000.9, 1_764_000_000_001, 2 ** 48 - 1, 2 ** 48, 2 ** 48 + 5, -3, Date.now()];
    const ids: [number, string][] = [];
    for (let i = 0; i < 1000; i++) {
      const t = times[i % times.length]!;
      ids.push([t, source.next(t)]);
    }
    expect(drawn.length).toBeGreaterThanOrEqual(ids.length);
    ids.forEach(([t, id], i) => expect(id).toBe(reference(t, drawn[i]!)));
  });

  it("is a UUIDv7 whose first 48 bits are the time, increasing with it and unique", () => {
    const seen = new Set<string>();
    let prev = "";
    for (let i = 0; i < 5000; i++) {
      const ms = 1_764_000_000_000 + i;
      const id = decisionId(ms);
      expect(id).toMatch(UUID_V7);
      expect(id.replace("-", "").slice(0, 12)).toBe(ms.toString(16).padStart(12, "0"));
      expect(id > prev).toBe(true);
      prev = id;
      seen.add(id);
    }
    expect(seen.size).toBe(5000);
    const same = new Set(Array.from({ length: 5000 }, () => decisionId(42)));
    expect(same.size).toBe(5000);
  });
});
