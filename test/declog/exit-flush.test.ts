/** Group commit: entries still queued when the process ends are written (process.exit for SQLite; the loop running dry for both stores). */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openPgStore } from "../../src/store/postgres/index.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { createTestSchema, pgUrl } from "../helpers/pg-env.js";
import type { TestSchema } from "../helpers/pg-env.js";

const run = (args: readonly string[]) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const p = spawn(process.execPath, ["--import", "tsx", join("test", "declog", "exit-child.ts"), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (b: Buffer) => (out += b.toString()));
    p.stderr.on("data", (b: Buffer) => (err += b.toString()));
    p.on("exit", (code) => resolve({ code, out, err }));
  });

describe("decision log flushed at process end", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-exit-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(["exit", "drain"])("sqlite: %s without close writes the queued entries", async (mode) => {
    const file = join(dir, `${mode}.db`);
    const r = await run(["sqlite", mode, file]);
    expect(r).toMatchObject({ code: 0, out: "queued\n" });
    const store = openSqliteStore(file);
    try {
      expect((await store.listDecisions()).map((d) => d.decision_id).sort()).toEqual([0, 1, 2].map((i) => `exit-${mode}-${i}`));
    } finally {
      await store.close();
    }
  }, 60_000);

  describe.skipIf(pgUrl === undefined)("postgres", () => {
    let env: TestSchema | null = null;
    afterAll(async () => env?.drop());
    it("the event loop running dry writes the queued entries", async () => {
      env = await createTestSchema();
      const r = await run(["postgres", "drain", env.url, env.schema]);
      expect(r).toMatchObject({ code: 0, out: "queued\n" });
      const store = await openPgStore({ pool: env.pool });
      expect((await store.listDecisions()).map((d) => d.decision_id).sort()).toEqual([0, 1, 2].map((i) => `exit-drain-${i}`));
      await store.close();
    }, 60_000);
  });
});
