/** The ratchet: `floor.json` holds the lowest overall pass rate CI accepts. */
import { readFileSync, writeFileSync } from "node:fs";

export const defaultFloorPath = new URL("./floor.json", import.meta.url).pathname;

interface FloorFile {
  comment?: string;
  passRate: number;
}

export function readFloor(path: string = defaultFloorPath): number {
  const f = JSON.parse(readFileSync(path, "utf8")) as FloorFile;
  if (typeof f.passRate !== "number" || f.passRate < 0 || f.passRate > 100) {
    throw new Error(`${path}: passRate must be a number between 0 and 100`);
  }
  return f.passRate;
}

/** Raises the floor to `rate` (rounded down to 0.1); never lowers it. Returns the new floor. */
export function raiseFloor(rate: number, path: string = defaultFloorPath): number {
  const f = JSON.parse(readFileSync(path, "utf8")) as FloorFile;
  const next = Math.floor(rate * 10) / 10;
  if (next <= f.passRate) return f.passRate;
  writeFileSync(path, `${JSON.stringify({ ...f, passRate: next }, null, 2)}\n`);
  return next;
}
