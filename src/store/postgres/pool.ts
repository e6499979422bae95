import pg from "pg";
import { PgStoreError } from "./errors.js";

/** How to reach the database. `schema` isolates one deployment (or one test run) from another. */
export interface PgConnectionOptions {
  /** postgres://user@host:port/db; defaults to TOOLGATE_PG_URL. */
  readonly url?: string;
  /** Schema holding toolgate's tables; default "public". Created by `migrate` when missing. */
  readonly schema?: string;
  /** Pool size per process. Several workers each hold their own pool. */
  readonly max?: number;
  readonly applicationName?: string;
  /** Server-side cap on one statement (default 30 s): a stuck query fails instead of hanging a call. */
  readonly statementTimeoutMs?: number;
  /** How long to wait for a connection from the server (default 10 s). */
  readonly connectTimeoutMs?: number;
}

export const pgUrlEnvVar = "TOOLGATE_PG_URL";

const schemaNamePattern = /^[a-z_][a-z0-9_]{0,62}$/;

/** The URL to use: explicit first, then TOOLGATE_PG_URL; throws a `pg_url_missing` error otherwise. */
export function resolvePgUrl(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const url = explicit ?? env[pgUrlEnvVar];
  if (url === undefined || url === "") {
    throw new PgStoreError("pg_url_missing", `no PostgreSQL URL: pass --url or set ${pgUrlEnvVar}`);
  }
  return url;
}

/** Schema names are spliced into SQL (search_path, CREATE SCHEMA), so only plain identifiers pass. */
export function checkSchemaName(schema: string): string {
  if (!schemaNamePattern.test(schema)) {
    throw new PgStoreError(
      "pg_invalid_schema_name",
      `schema name ${JSON.stringify(schema)} must match ${schemaNamePattern.source}`,
    );
  }
  return schema;
}

/**
 * A pool whose every connection has search_path set to the schema, so store SQL
 * stays unqualified and a test run's schema cannot touch another's tables.
 */
export function createPgPool(opts: PgConnectionOptions = {}): pg.Pool {
  const schema = checkSchemaName(opts.schema ?? "public");
  const pool = new pg.Pool({
    connectionString: resolvePgUrl(opts.url),
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? "toolgate",
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    // Idle connections do not keep the process alive, so it ends (and flushes the queued decision log) when its work is done.
    allowExitOnIdle: true,
    options: `-c search_path=${schema} -c statement_timeout=${Math.max(0, Math.floor(opts.statementTimeoutMs ?? 30_000))}`,
  });
  // An idle client losing its connection (server restart) must not crash the process;
  // the next query on the pool gets a fresh connection or a real error.
  pool.on("error", () => {});
  return pool;
}

/**
 * Runs a fixed statement as a named prepared statement: each pooled connection
 * parses and plans it once, which matters because every call makes several
 * short round trips. `name` must be unique per SQL text.
 */
export function runPrepared<R extends pg.QueryResultRow>(
  db: pg.Pool,
  name: string,
  text: string,
  values: readonly unknown[],
): Promise<pg.QueryResult<R>> {
  return db.query<R>({ name: `toolgate_${name}`, text, values: [...values] });
}
