import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StoreOpenError, openStore, resolveStoreConfig, storeConfigFromEnv } from "../../src/store/open-store.js";
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

  it.each([
    { note: "a path wins over the environment's URL", opts: { path: "a.db", env: { TOOLGATE_PG_URL: "postgres://h/db" } }, want: { kind: "sqlite", path: "a.db" } },
    { note: "a URL wins over the default file", opts: { url: "postgres://x/db", defaultPath: "a.db", env: {} }, want: { kind: "postgres", url: "postgres://x/db" } },
    { note: "the environment's URL and schema", opts: { env: { TOOLGATE_PG_URL: "postgres://h/db", TOOLGATE_PG_SCHEMA: "tg" } }, want: { kind: "postgres", url: "postgres://h/db", schema: "tg" } },
    { note: "an explicit schema wins over TOOLGATE_PG_SCHEMA", opts: { url: "postgres://h/db", schema: "mine", env: { TOOLGATE_PG_SCHEMA: "tg" } }, want: { kind: "postgres", url: "postgres://h/db", schema: "mine" } },
    { note: "neither: TOOLGATE_DB", opts: { env: { TOOLGATE_DB: "env.db" } }, want: { kind: "sqlite", path: "env.db" } },
    { note: "neither and no TOOLGATE_DB: toolgate.db", opts: { env: {} }, want: { kind: "sqlite", path: "toolgate.db" } },
  ])("openStore's choice: $note", ({ opts, want }) => {
    expect(resolveStoreConfig(opts)).toEqual(want);
  });

  it.each([
    { note: "both a path and a URL", opts: { path: "a.db", url: "postgres://h/db", env: {} }, code: "store_conflict" },
    { note: "no store named and no default file", opts: { defaultPath: null, env: {} }, code: "store_missing" },
    { note: "a file that must exist and does not", opts: { path: join(tmpdir(), "tg-no-such-store.db"), existingFile: true, env: {} }, code: "file_not_found" },
  ])("openStore refuses $note with a typed error", async ({ opts, code }) => {
    const err = await openStore(opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreOpenError);
    expect(err).toMatchObject({ code });
    expect((err as StoreOpenError).hint).not.toBe("");
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
