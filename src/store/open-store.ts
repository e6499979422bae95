/**
 * The one way to open a store, for the library, the CLI, `serve` and `mcp`:
 * `openStore({ path | url, ... })`. An explicit `path` opens the embedded SQLite file, an
 * explicit `url` the shared PostgreSQL store (schema from `schema`, else TOOLGATE_PG_SCHEMA,
 * else "public"); with neither, TOOLGATE_PG_URL selects PostgreSQL, else the SQLite file
 * `defaultPath` (default: TOOLGATE_DB, else toolgate.db). The PostgreSQL store (and `pg`) is
 * imported only when chosen (`toolgate/postgres`): a SQLite-only program never loads it.
 * Enters: options, the environment. Leaves: an open Store, or a StoreOpenError / PgStoreError.
 */
import { existsSync } from "node:fs";
import { pgUrlEnvVar } from "./postgres/env.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import type { DecisionLogOptions } from "./decision-batch.js";
import type { Store } from "./store.js";

export const pgSchemaEnvVar = "TOOLGATE_PG_SCHEMA";
export const sqlitePathEnvVar = "TOOLGATE_DB";

export interface OpenStoreOptions {
  /** Which backend, when the caller knows (a config written for one); default: chosen from path, url and the environment. */
  readonly kind?: "sqlite" | "postgres";
  /** The SQLite file (or ":memory:"). */
  readonly path?: string;
  /** The PostgreSQL URL (postgres://user@host:port/db). */
  readonly url?: string;
  /** PostgreSQL schema; default $TOOLGATE_PG_SCHEMA, else "public". */
  readonly schema?: string;
  /**
   * On PostgreSQL, apply pending migrations on open (advisory-locked, safe from many processes)
   * instead of requiring `toolgate migrate` first. Default false.
   */
  readonly migrate?: boolean;
  /** PostgreSQL pool size. */
  readonly max?: number;
  /** PostgreSQL application_name (shown in pg_stat_activity). */
  readonly applicationName?: string;
  readonly decisionLog?: DecisionLogOptions;
  /**
   * The SQLite file when neither `path` nor a URL (given or $TOOLGATE_PG_URL) names the store;
   * `null`: none, so that case is a `store_missing` error. Default: $TOOLGATE_DB, else "toolgate.db".
   */
  readonly defaultPath?: string | null;
  /** The SQLite file must exist already (a reader such as `toolgate log` never creates an empty store). Default false. */
  readonly existingFile?: boolean;
  /** Default: process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

/** A store configuration (what `storeConfigFromEnv` answers); `openStore` takes it as is. */
export type StoreConfig =
  | { readonly kind: "sqlite"; readonly path: string; readonly decisionLog?: DecisionLogOptions }
  | ({ readonly kind: "postgres" } & Pick<OpenStoreOptions, "url" | "schema" | "migrate" | "max" | "applicationName" | "decisionLog">);

export type StoreOpenErrorCode = "store_conflict" | "store_missing" | "file_not_found";

/** The options name no store, two, or a SQLite file that must exist and does not. */
export class StoreOpenError extends Error {
  override name = "StoreOpenError";
  constructor(
    readonly code: StoreOpenErrorCode,
    message: string,
    /** What to do about it. */
    readonly hint: string,
    /** The SQLite file, for `file_not_found`. */
    readonly path?: string,
  ) {
    super(message);
  }
}

export const isStoreOpenError = (e: unknown): e is StoreOpenError => e instanceof StoreOpenError;

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === "" ? undefined : v);

/** Which store the options name (without opening it); throws StoreOpenError as `openStore` does. */
export function resolveStoreConfig(opts: OpenStoreOptions = {}): StoreConfig {
  const env = opts.env ?? process.env;
  if (opts.path !== undefined && opts.url !== undefined) {
    throw new StoreOpenError("store_conflict", "both a SQLite path and a PostgreSQL URL were given", "pass one of them");
  }
  const decisionLog = opts.decisionLog === undefined ? {} : { decisionLog: opts.decisionLog };
  const url = opts.kind === "sqlite" || opts.path !== undefined ? undefined : (opts.url ?? nonEmpty(env[pgUrlEnvVar]));
  if (url !== undefined || opts.kind === "postgres") {
    const schema = opts.schema ?? nonEmpty(env[pgSchemaEnvVar]);
    return {
      kind: "postgres",
      ...(url === undefined ? {} : { url }),
      ...(schema === undefined ? {} : { schema }),
      ...(opts.migrate === undefined ? {} : { migrate: opts.migrate }),
      ...(opts.max === undefined ? {} : { max: opts.max }),
      ...(opts.applicationName === undefined ? {} : { applicationName: opts.applicationName }),
      ...decisionLog,
    };
  }
  const path = opts.path ?? (opts.defaultPath === undefined ? (nonEmpty(env[sqlitePathEnvVar]) ?? "toolgate.db") : opts.defaultPath);
  if (path === null) {
    throw new StoreOpenError("store_missing", "no store: give a SQLite path or a PostgreSQL URL", `or set ${pgUrlEnvVar}=postgres://user@host:5432/db`);
  }
  if (opts.existingFile === true && path !== ":memory:" && !existsSync(path)) {
    throw new StoreOpenError("file_not_found", `no store file ${path}`, "pass the SQLite file the runtime writes to", path);
  }
  return { kind: "sqlite", path, ...decisionLog };
}

/** Opens the store the options name (see the module comment); PostgreSQL errors are PgStoreError. */
export async function openStore(opts: OpenStoreOptions = {}): Promise<Store> {
  const config = resolveStoreConfig(opts);
  if (config.kind === "sqlite") return openSqliteStore(config.path, config.decisionLog === undefined ? {} : { decisionLog: config.decisionLog });
  const { kind: _, ...pg } = config;
  const { openPgStore } = await import("./postgres/pg-store.js");
  return openPgStore(pg);
}

/** The configuration the environment names: PostgreSQL when TOOLGATE_PG_URL is set, else the SQLite file `sqlitePath`. */
export function storeConfigFromEnv(sqlitePath: string, env: NodeJS.ProcessEnv = process.env): StoreConfig {
  return resolveStoreConfig({ defaultPath: sqlitePath, env });
}

export interface StoreFromEnvOptions {
  /** The SQLite file when TOOLGATE_PG_URL is not set. Default: $TOOLGATE_DB, else "toolgate.db". */
  readonly sqlitePath?: string;
  /** See OpenStoreOptions.migrate. */
  readonly migrate?: boolean;
  readonly decisionLog?: DecisionLogOptions;
  /** Default: process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

/** `openStore` with only the environment naming the store: PostgreSQL when TOOLGATE_PG_URL is set, else the SQLite file. */
export function openStoreFromEnv(opts: StoreFromEnvOptions = {}): Promise<Store> {
  const { sqlitePath, ...rest } = opts;
  return openStore({ ...rest, ...(sqlitePath === undefined ? {} : { defaultPath: sqlitePath }) });
}
