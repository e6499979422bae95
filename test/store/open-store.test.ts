import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore, storeConfigFromEnv } from "../../src/store/open-store.js";
import { pgUrl, randomSchemaName, skipWithoutPg } from "../helpers/pg-env.js";
import { createPgPool } from "../../src/store/postgres/pool.js";

const skip = skipWithoutPg("store selection (postgres part)");

describe("store selection", () => {
  it.each([
    { note: "no URL: embedded SQLite", env: {}, want: { kind: "sqlite", path: "state.db" } },
    { note: "empty URL: embedded SQLite", env: { TOOLGATE_PG_URL: "" }, want: { kind: "sqlite", path: "state.db" } },
    { note: "URL: PostgreSQL", env: { TOOLGATE_PG_URL: "postgres://h/db" }, want: { kind: "postgres", url: "postgres://h/db" } },
    {
      note: "URL and schema",
      env: { TOOLGATE_PG_URL: "postgres://h/db", TOOLGATE_PG_SCHEMA: "tg" },
      want: { kind: "postgres", url: "postgres://h/db", schema: "tg" },
    },
  ])("$note", ({ env, want }) => {
    expect(storeConfigFromEnv("state.db", env)).toEqual(want);
  });

  it("opens the SQLite store from its config", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-open-"));
    try {
      const store = await openStore({ kind: "sqlite", path: join(dir, "s.db") });
      expect(store.kind).toBe("sqlite");
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(skip)("opens the PostgreSQL store from its config", async () => {
    const schema = randomSchemaName();
    const store = await openStore({ kind: "postgres", url: pgUrl!, schema, migrate: true, max: 1 });
    try {
      expect(store.kind).toBe("postgres");
    } finally {
      await store.close();
      const pool = createPgPool({ url: pgUrl!, max: 1 });
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    }
  });
});
