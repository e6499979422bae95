/**
 * Several processes open the same new SQLite file at once (worker pools start together): each
 * open adds the newer columns, and none may fail because another added them first.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const worker = fileURLToPath(new URL("./open-concurrently.worker.ts", import.meta.url));

function open(path: string, startAt: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", worker, path, String(startAt)], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("opening a SQLite store", () => {
  it("processes opening the same new file at once all succeed (the added columns are made once)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-open-"));
    try {
      for (let round = 0; round < 3; round++) {
        const path = join(dir, `state-${round}.db`);
        const startAt = Date.now() + 1_500;
        const runs = await Promise.all(Array.from({ length: 6 }, () => open(path, startAt)));
        expect(runs.filter((r) => r.code !== 0).map((r) => r.stderr.split("\n").find((l) => l.includes("Error")) ?? r.stderr)).toEqual([]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
