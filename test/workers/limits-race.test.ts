/**
 * Limits and natural keys across worker processes: 4 processes on PostgreSQL and 4 on one SQLite
 * file race against one `max_sum`, and against one natural idempotency key. The full-size run
 * (1,000 calls) is bench/limits-race.ts.
 */
import { describe, expect, it } from "vitest";
import { limitRace, limitVerdict, naturalKeyRace } from "../helpers/workers/limit-race.js";
import type { RaceStore } from "../helpers/workers/limit-race.js";
import { skipWithoutPg } from "../helpers/pg-env.js";

const stores: { store: RaceStore; skip: boolean }[] = [
  { store: "sqlite", skip: false },
  { store: "postgres", skip: skipWithoutPg("limits-race") },
];

for (const { store, skip } of stores) {
  describe.skipIf(skip)(`limits across 4 worker processes [${store}]`, () => {
    it("concurrent calls from 4 processes never exceed max_sum, and every refused call is one that did not fit", async () => {
      const maxSum = 2_000;
      const r = await limitRace(store, 4, 120, maxSum);
      const v = limitVerdict(r, maxSum);
      expect(v.other).toEqual([]);
      expect(v.effects).toBe(v.executed);
      expect(v.effectsSum).toBe(v.executedSum);
      expect(v.effectsSum).toBeLessThanOrEqual(maxSum);
      expect(v.refused).toBeGreaterThan(0);
      expect(v.wronglyRefused).toBe(0);
    }, 300_000);

    it("calls with one natural key and random operation ids from 4 processes make exactly one effect", async () => {
      const r = await naturalKeyRace(store, 4, 120);
      expect(r.effects).toHaveLength(1);
      expect(r.answers.filter((a) => a.reason === "success")).toHaveLength(1);
      expect(r.answers.filter((a) => a.reason !== "success" && a.reason !== "replayed")).toEqual([]);
    }, 300_000);
  });
}
