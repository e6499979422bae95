/**
 * WAL checkpoints of the SQLite store run in a background worker (`walCheckpoint:
 * "background"`, the default for files), so no commit on the call path waits for the
 * checkpoint's fsyncs: the database file receives committed pages with no further commit,
 * while with `inline` they stay in the WAL until a commit crosses SQLite's threshold.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/store.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function writeInterrupts(store: Store, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await store.setInterrupt({ tenant: "t", run_id: `run-${i}-${"x".repeat(200)}`, reason: "stop", at_ms: i });
}

/** Bytes of the database file (not the WAL) after `n` commits, once `waitMs` passed. */
async function mainFileGrowth(walCheckpoint: "background" | "inline", n: number, waitMs: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-ckpt-"));
  try {
    const path = join(dir, "state.db");
    const store = openSqliteStore(path, { walCheckpoint, checkpointIntervalMs: 10 });
    const before = statSync(path).size;
    await writeInterrupts(store, n);
    const deadline = Date.now() + waitMs;
    while (statSync(path).size === before && Date.now() < deadline) await sleep(10);
    const grown = statSync(path).size - before;
    await store.close();
    return grown;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("sqlite WAL checkpoints", () => {
  it("background checkpoint copies committed pages into the database file without another commit", async () => {
    expect(await mainFileGrowth("background", 200, 5_000)).toBeGreaterThan(0);
  });

  it("inline checkpoint leaves them in the WAL below SQLite's threshold (the difference the worker makes)", async () => {
    expect(await mainFileGrowth("inline", 200, 300)).toBe(0);
  });

  it("close settles with the worker running and the file reopens with every commit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-ckpt-"));
    try {
      const path = join(dir, "state.db");
      const a = openSqliteStore(path, { checkpointIntervalMs: 5 });
      const b = openSqliteStore(path, { checkpointIntervalMs: 5 });
      await writeInterrupts(a, 50);
      await Promise.all([a.close(), b.close()]);
      const c = openSqliteStore(path);
      expect(await c.getInterrupt("t", `run-49-${"x".repeat(200)}`)).toMatchObject({ reason: "stop" });
      await c.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a process that never closes its file store still exits on its own (the worker keeps nothing alive) and its queued entry is written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-ckpt-"));
    try {
      const path = join(dir, "state.db");
      const child = spawn(process.execPath, ["--import", "tsx", join("test", "store", "unclosed-store-child.ts"), path], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (b: Buffer) => void (out += b.toString()));
      const exited = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          resolve(null);
        }, 20_000);
        child.on("exit", (code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
      expect([exited, out.trim()]).toEqual([0, "WROTE"]);
      const store = openSqliteStore(path);
      expect(await store.getDecision("unclosed-1")).toMatchObject({ reason: "read_allowed" });
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
