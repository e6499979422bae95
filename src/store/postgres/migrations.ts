import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { PgStoreError } from "./errors.js";
import { checkSchemaName } from "./pool.js";

/** One versioned schema change: `migrations/NNN_name.sql`. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /** sha256 of the SQL (LF line endings); an applied migration must never change. */
  readonly checksum: string;
}

export interface MigrateResult {
  readonly schema: string;
  /** Migrations this call applied, in order; empty when the schema was current. */
  readonly applied: readonly Migration[];
  /** Highest version now applied. */
  readonly version: number;
}

const fileNamePattern = /^(\d{3})_([a-z0-9_]+)\.sql$/;
// First key of the two-key advisory lock; the second is the schema's hash, so
// runs against different schemas (parallel test runs) don't wait for each other.
const migrateLockClass = 0x7467; // "tg"

export const defaultMigrationsDir = fileURLToPath(new URL("./migrations/", import.meta.url));

/** Reads and orders the migration files; versions are unique and ascending (gaps allowed). */
export function loadMigrations(dir: string = defaultMigrationsDir): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith(".sql")) continue;
    const m = fileNamePattern.exec(file);
    if (m === null) {
      throw new PgStoreError("migration_file_invalid", `${file}: migration files are named NNN_name.sql`);
    }
    const sql = readFileSync(`${dir}/${file}`, "utf8").replace(/\r\n/g, "\n");
    const checksum = createHash("sha256").update(sql).digest("hex");
    migrations.push({ version: Number(m[1]), name: m[2]!, sql, checksum });
  }
  // Versions are reserved per change and may land in any order, so a gap is allowed (the
  // missing number is simply not applied yet); a repeated or zero version is a mistake.
  migrations.forEach((mig, i) => {
    const prev = i === 0 ? 0 : migrations[i - 1]!.version;
    if (mig.version <= prev) {
      throw new PgStoreError(
        "migration_file_invalid",
        `migration ${mig.version}_${mig.name}: version ${mig.version} is ${i > 0 && mig.version === prev ? "used twice" : "not above the previous one"} (each migration needs its own number, starting at 1)`,
      );
    }
  });
  return migrations;
}

/**
 * Brings `schema` up to the latest migration in one transaction under an
 * advisory lock: several workers starting at once apply each migration exactly
 * once, and the losers see the finished schema. A failure rolls everything back.
 */
export async function migrate(
  pool: pg.Pool,
  opts: { readonly schema?: string; readonly migrations?: readonly Migration[] } = {},
): Promise<MigrateResult> {
  const schema = checkSchemaName(opts.schema ?? "public");
  const migrations = opts.migrations ?? loadMigrations();
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // Migrations may legitimately run long (index builds); the pool's per-statement cap is for calls.
    await client.query("SET LOCAL statement_timeout = 0");
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [migrateLockClass, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`SET LOCAL search_path = ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version     integer     PRIMARY KEY,
      name        text        NOT NULL,
      checksum    text        NOT NULL,
      applied_at  timestamptz NOT NULL DEFAULT now()
    )`);
    const rows = await client.query<{ version: number; name: string; checksum: string }>(
      "SELECT version, name, checksum FROM schema_migrations ORDER BY version",
    );
    const done = checkApplied(rows.rows, migrations, schema);
    const applied: Migration[] = [];
    for (const mig of migrations) {
      if (done.has(mig.version)) continue;
      try {
        await client.query(mig.sql);
      } catch (err) {
        throw new PgStoreError(
          "migration_failed",
          `migration ${mig.version}_${mig.name} failed: ${err instanceof Error ? err.message : String(err)}`,
          { version: mig.version },
        );
      }
      await client.query("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)", [
        mig.version,
        mig.name,
        mig.checksum,
      ]);
      applied.push(mig);
    }
    await client.query("COMMIT");
    return { schema, applied, version: migrations.at(-1)?.version ?? 0 };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** Applied rows must be known migrations with unchanged SQL; returns the applied versions. */
function checkApplied(
  rows: ReadonlyArray<{ version: number; name: string; checksum: string }>,
  migrations: readonly Migration[],
  schema: string,
): Set<number> {
  const byVersion = new Map(migrations.map((m) => [m.version, m]));
  for (const row of rows) {
    const mig = byVersion.get(row.version);
    if (mig === undefined) {
      throw new PgStoreError(
        "migration_unknown_version",
        `schema ${schema} has migration ${row.version}_${row.name}, which this toolgate does not know (database is newer than the code)`,
        { version: row.version },
      );
    }
    if (mig.checksum !== row.checksum) {
      throw new PgStoreError(
        "migration_checksum_mismatch",
        `migration ${row.version}_${row.name} was changed after it was applied to schema ${schema}; add a new migration instead`,
        { version: row.version, applied: row.checksum, file: mig.checksum },
      );
    }
  }
  return new Set(rows.map((r) => r.version));
}
