/**
 * PostgreSQL test environment: every test run gets its own schema
 * (toolgate_test_<random>), dropped afterwards, so parallel runs never collide.
 */
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { createPgPool, pgUrlEnvVar } from "../../src/store/postgres/pool.js";
import { migrate } from "../../src/store/postgres/migrations.js";

export const pgUrl: string | undefined = process.env[pgUrlEnvVar] || undefined;

/** True when PostgreSQL tests must skip; says so loudly, never silently. */
export function skipWithoutPg(suite: string): boolean {
  if (pgUrl !== undefined) return false;
  console.warn(
    `[${suite}] SKIPPED: ${pgUrlEnvVar} is not set. Run with a real PostgreSQL, e.g.\n` +
      `  ${pgUrlEnvVar}=postgres://postgres@127.0.0.1:5432/test npx vitest run test/store test/workers`,
  );
  return true;
}

export function randomSchemaName(): string {
  return `toolgate_test_${randomBytes(6).toString("hex")}`;
}

export interface TestSchema {
  readonly url: string;
  readonly schema: string;
  readonly pool: pg.Pool;
  /** Drops the schema and closes the pool. */
  drop(): Promise<void>;
}

/** A fresh schema, migrated, with a pool bound to it. */
export async function createTestSchema(opts: { migrated?: boolean } = {}): Promise<TestSchema> {
  if (pgUrl === undefined) throw new Error(`${pgUrlEnvVar} is not set`);
  const schema = randomSchemaName();
  const pool = createPgPool({ url: pgUrl, schema, max: 4, applicationName: "toolgate test" });
  if (opts.migrated !== false) await migrate(pool, { schema });
  return {
    url: pgUrl,
    schema,
    pool,
    async drop() {
      await dropSchema(pool, schema);
      await pool.end();
    },
  };
}

export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}
