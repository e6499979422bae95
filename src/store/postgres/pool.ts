import pg from "pg";
import { PgStoreError } from "./errors.js";
import { pgUrlEnvVar } from "./env.js";
import { JsonValueStatement } from "./json-statement.js";

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

export { pgUrlEnvVar };

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
 * Runs a pool's statements on connections it keeps checked out until the end of the
 * current event-loop turn. The statements of one call follow each other within a turn
 * (a reply arrives, the next statement is sent from the same callbacks), so they reuse
 * one connection instead of checking it out of the pool and back for every statement.
 * A kept connection is only ever idle between two statements: it serves one statement
 * at a time, a second concurrent statement takes another connection from the pool, and
 * all of them go back to the pool in the loop's check phase (`setImmediate`). A caller
 * sending statements back to back keeps its connection across turns, so while anyone
 * waits for a connection of the pool, a finished statement's connection goes straight
 * back to the pool (first come, first served, as with `pool.query`). A statement that
 * fails sends its connection back as broken (the pool closes it), as `pool.query` does;
 * so does a connection that reports an error while kept.
 */
class StatementRunner {
  readonly #pool: pg.Pool;
  readonly #kept: Kept[] = [];
  #returning = false;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Runs `issue` on a kept connection or one from the pool; `issue` calls `done` exactly once. */
  run<T>(issue: Issue<T>): Promise<T> {
    let kept = this.#kept.pop();
    while (kept?.broken === true) kept = this.#kept.pop();
    if (kept !== undefined && this.#pool.waitingCount > 0) {
      // Someone waits for a connection: it goes to them, this statement queues behind.
      kept.release();
      kept = undefined;
    }
    if (kept === undefined) return this.#pool.connect().then((client) => this.#send(new Kept(client), issue));
    return this.#send(kept, issue);
  }

  // The driver's callback form: its promise form adds a promise and a handler per statement.
  #send<T>(kept: Kept, issue: Issue<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      const done = (err: Error | null | undefined, res: T | undefined): void => {
        if (err !== null && err !== undefined) {
          kept.release(err);
          reject(err);
          return;
        }
        this.#keep(kept);
        resolve(res as T);
      };
      try {
        issue(kept.client, done);
      } catch (err) {
        done(err instanceof Error ? err : new Error(String(err)), undefined);
      }
    });
  }

  #keep(kept: Kept): void {
    if (kept.broken) return;
    if (this.#pool.waitingCount > 0) {
      kept.release();
      return;
    }
    this.#kept.push(kept);
    if (!this.#returning) {
      this.#returning = true;
      setImmediate(this.#returnAll);
    }
  }

  readonly #returnAll = (): void => {
    this.#returning = false;
    for (const kept of this.#kept.splice(0)) kept.release();
  };
}

/** A pool connection checked out by a `StatementRunner`, released to the pool exactly once. */
class Kept {
  readonly client: pg.PoolClient;
  broken = false;
  #released = false;
  readonly #onError = (err: Error): void => {
    this.broken = true;
    this.release(err);
  };

  constructor(client: pg.PoolClient) {
    this.client = client;
    client.on("error", this.#onError);
  }

  release(err?: Error): void {
    if (this.#released) return;
    this.#released = true;
    this.broken = true;
    this.client.removeListener("error", this.#onError);
    this.client.release(err);
  }
}

/** Sends one statement on `client` and calls `done` once with its answer or error. */
type Issue<T> = (client: pg.PoolClient, done: (err: Error | null | undefined, res: T | undefined) => void) => void;

const runners = new WeakMap<pg.Pool, StatementRunner>();

function runnerOf(db: pg.Pool): StatementRunner {
  let runner = runners.get(db);
  if (runner === undefined) {
    runner = new StatementRunner(db);
    runners.set(db, runner);
  }
  return runner;
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
  const config: pg.QueryConfig = { name: `toolgate_${name}`, text, values: values as unknown[] };
  return runnerOf(db).run<pg.QueryResult<R>>((client, done) => {
    client.query<R>(config, done as (err: Error, res: pg.QueryResult<R>) => void);
  });
}

/**
 * Like `runPrepared` for a statement answering at most one row of ONE json column (a value
 * built in SQL): the parsed value, or undefined without a row. Sent as a `JsonValueStatement`
 * (no Describe, no row description, no row object). Parameters must be text, numbers,
 * booleans or null.
 */
export function runPreparedValue<V>(db: pg.Pool, name: string, text: string, values: readonly unknown[]): Promise<V | undefined> {
  return runnerOf(db).run<V | undefined>((client, done) => {
    const statement = new JsonValueStatement<V>(`toolgate_${name}`, text, values);
    statement.callback = done;
    client.query(statement);
  });
}
