import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { isPgStoreError } from "../../src/store/postgres/errors.js";
import { loadMigrations, migrate, type Migration } from "../../src/store/postgres/migrations.js";
import { createPgPool } from "../../src/store/postgres/pool.js";
import { dropSchema, pgUrl, randomSchemaName, skipWithoutPg } from "../helpers/pg-env.js";

const skip = skipWithoutPg("postgres migrations");

function fakeMigration(version: number, sql: string): Migration {
  return { version, name: `m${version}`, sql, checksum: `sum-${version}-${sql.length}` };
}

describe("migration files", () => {
  it("loads the shipped migrations in ascending order starting at 1", () => {
    const migs = loadMigrations();
    expect(migs[0]!.version).toBe(1);
    expect(migs.map((m) => m.version)).toEqual([...migs.map((m) => m.version)].sort((a, b) => a - b));
    expect(new Set(migs.map((m) => m.version)).size).toBe(migs.length);
    expect(migs[0]!.sql).toContain("CREATE TABLE idempotency_records");
  });

  it.each([
    { note: "a version used twice", files: ["001_a.sql", "002_b.sql", "002_c.sql"], message: /used twice/ },
    { note: "version zero", files: ["000_a.sql"], message: /not above/ },
    { note: "bad file name", files: ["1_a.sql"], message: /NNN_name\.sql/ },
  ])("rejects $note", ({ files, message }) => {
    const dir = mkdtempSync(join(tmpdir(), "tg-mig-"));
    for (const f of files) writeFileSync(join(dir, f), "SELECT 1;");
    expect(() => loadMigrations(dir)).toThrow(message);
  });

  it("accepts a gap: numbers are reserved for migrations that arrive later", () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-mig-"));
    for (const f of ["001_a.sql", "003_c.sql"]) writeFileSync(join(dir, f), "SELECT 1;");
    expect(loadMigrations(dir).map((m) => m.version)).toEqual([1, 3]);
  });
});

describe.skipIf(skip)("migrate against PostgreSQL", () => {
  const schemas: string[] = [];
  const pool = skip ? null : createPgPool({ url: pgUrl!, max: 2 });
  const fresh = (): string => {
    const s = randomSchemaName();
    schemas.push(s);
    return s;
  };
  afterAll(async () => {
    for (const s of schemas) await dropSchema(pool!, s);
    await pool?.end();
  });

  it("applies every migration once and is then a no-op", async () => {
    const schema = fresh();
    const first = await migrate(pool!, { schema });
    expect(first.applied.map((m) => m.version)).toEqual(loadMigrations().map((m) => m.version));
    const second = await migrate(pool!, { schema });
    expect(second.applied).toEqual([]);
    expect(second.version).toBe(first.version);
  });

  it("is safe when eight workers migrate the same schema at once", async () => {
    const schema = fresh();
    const pools = Array.from({ length: 8 }, () => createPgPool({ url: pgUrl!, schema, max: 1 }));
    try {
      const results = await Promise.all(pools.map((p) => migrate(p, { schema })));
      const appliedCount = results.reduce((n, r) => n + r.applied.length, 0);
      expect(appliedCount).toBe(loadMigrations().length);
      const rows = await pool!.query(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
      expect(rows.rows.map((r: { version: number }) => r.version)).toEqual(loadMigrations().map((m) => m.version));
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it("refuses a migration whose SQL changed after it was applied", async () => {
    const schema = fresh();
    await migrate(pool!, { schema, migrations: [fakeMigration(1, "CREATE TABLE t1 (x int)")] });
    const changed = { ...fakeMigration(1, "CREATE TABLE t1 (x int)"), checksum: "different" };
    const err = await migrate(pool!, { schema, migrations: [changed] }).catch((e: unknown) => e);
    expect(isPgStoreError(err) && err.code).toBe("migration_checksum_mismatch");
  });

  it("refuses a database that is newer than the code", async () => {
    const schema = fresh();
    await migrate(pool!, { schema, migrations: [fakeMigration(1, "SELECT 1"), fakeMigration(2, "SELECT 2")] });
    const err = await migrate(pool!, { schema, migrations: [fakeMigration(1, "SELECT 1")] }).catch((e: unknown) => e);
    expect(isPgStoreError(err) && err.code).toBe("migration_unknown_version");
  });

  it("applies a lower-numbered migration that arrives after a higher one was applied", async () => {
    const schema = fresh();
    await migrate(pool!, { schema, migrations: [fakeMigration(1, "CREATE TABLE t1 (x int)"), fakeMigration(3, "CREATE TABLE t3 (x int)")] });
    const later = await migrate(pool!, {
      schema,
      migrations: [fakeMigration(1, "CREATE TABLE t1 (x int)"), fakeMigration(2, "CREATE TABLE t2 (x int)"), fakeMigration(3, "CREATE TABLE t3 (x int)")],
    });
    expect(later.applied.map((m) => m.version)).toEqual([2]);
    const t2 = await pool!.query("SELECT to_regclass($1) AS t", [`${schema}.t2`]);
    expect(t2.rows[0].t).not.toBeNull();
  });

  it("rolls back every migration of the run when one fails", async () => {
    const schema = fresh();
    const migs = [fakeMigration(1, "CREATE TABLE t1 (x int)"), fakeMigration(2, "CREATE TABLE broken (")];
    const err = await migrate(pool!, { schema, migrations: migs }).catch((e: unknown) => e);
    expect(isPgStoreError(err) && err.code).toBe("migration_failed");
    const t1 = await pool!.query("SELECT to_regclass($1) AS t", [`${schema}.t1`]);
    expect(t1.rows[0].t).toBeNull();
  });

  it("toolgate migrate --url applies the schema and exits 0", async () => {
    const schema = fresh();
    const first = await runCli(["migrate", "--url", pgUrl!, "--schema", schema]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/applied 001_initial/);
    const again = await runCli(["migrate", "--url", pgUrl!, "--schema", schema]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/already current/);
    const t = await pool!.query("SELECT to_regclass($1) AS t", [`${schema}.operations`]);
    expect(t.rows[0].t).not.toBeNull();
  });
});

describe("toolgate migrate without a URL", () => {
  it("exits 1 naming TOOLGATE_PG_URL", async () => {
    const r = await runCli(["migrate"], { env: { TOOLGATE_PG_URL: undefined } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/pg_url_missing: .*TOOLGATE_PG_URL/);
  });
});
