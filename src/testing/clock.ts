/** Clocks for tests: expiry and retention without sleeping. */
import type { Clock } from "../runtime/types.js";

export interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function manualClock(startMs = Date.UTC(2026, 0, 1)): ManualClock {
  let now = startMs;
  return {
    now: () => now,
    set: (ms) => void (now = ms),
    advance: (ms) => void (now += ms),
  };
}

export const fixedClock = (ms: number): Clock => ({ now: () => ms });
