/**
 * Limits across worker processes that are SIGKILLed mid-call (limit-race-crash.ts): after the
 * kills, the leases running out and the retries reconciling, the effects never exceed max_sum,
 * no operation has two effects, and no call that fits was refused. The heavier run (more waves,
 * more calls, random phases) is bench/limits-race.ts --crash.
 */
import { describe, expect, it } from "vitest";
import { crashRace, crashVerdict } from "../helpers/workers/limit-race-crash.js";
import type { RaceStore } from "../helpers/workers/limit-race.js";
import { skipWithoutPg } from "../helpers/pg-env.js";

const stores: { store: RaceStore; skip: boolean }[] = [
  { store: "sqlite", skip: false },
  { store: "postgres", skip: skipWithoutPg("limit-race-crash") },
];

for (const { store, skip } of stores) {
  describe.skipIf(skip)(`limits across SIGKILLed worker processes [${store}]`, () => {
    it("with processes killed after an effect and before one, the effects stay within max_sum and no call that fits is refused", async () => {
      const maxSum = 1_500;
      const r = await crashRace({ store, workers: 3, calls: 90, maxSum, killWaves: 1, killsPerWave: 2, phases: ["after_effect", "before_effect"] });
      const v = crashVerdict(r, maxSum);
      expect(r.kills).toBe(2);
      expect(r.crashed.size).toBeGreaterThan(0);
      expect(v.other).toEqual([]);
      expect(v.twice).toBe(0);
      expect(v.unreported).toBe(0);
      expect(v.over).toBe(0);
      expect(v.refused).toBeGreaterThan(0);
      expect(v.wronglyRefused).toBe(0);
    }, 120_000);
  });
}
