/**
 * Chooses the store: explicit configuration first; otherwise TOOLGATE_PG_URL
 * selects the shared PostgreSQL store (schema from TOOLGATE_PG_SCHEMA, default
 * "public"), and without it the embedded SQLite file is the default
 * (`openStoreFromEnv`, file from TOOLGATE_DB, default toolgate.db).
 */
import { openPgStore } from "./postgres/pg-store.js";
import { pgUrlEnvVar } from "./postgres/pool.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import type { DecisionLogOptions } from "./decision-batch.js";
import type { Store } from "./store.js";

export type StoreConfig =
  | { readonly kind: "sqlite"; readonly path: string; readonly decisionLog?: DecisionLogOptions }
  | {
      readonly kind: "postgres";
      /** Default: TOOLGATE_PG_URL. */
      readonly url?: string;
      readonly schema?: string;
      /** Apply pending migrations on open instead of requiring `toolgate migrate`. */
      readonly migrate?: boolean;
      readonly max?: number;
      readonly decisionLog?: DecisionLogOptions;
    };

export const pgSchemaEnvVar = "TOOLGATE_PG_SCHEMA";
export const sqlitePathEnvVar = "TOOLGATE_DB";

/** The configuration `openStore` uses when none is given. */
export function storeConfigFromEnv(sqlitePath: string, env: NodeJS.ProcessEnv = process.env): StoreConfig {
  const url = env[pgUrlEnvVar];
  if (url === undefined || url === "") return { kind: "sqlite", path: sqlitePath };
  const schema = env[pgSchemaEnvVar];
  return { kind: "postgres", url, ...(schema === undefined || schema === "" ? {} : { schema }) };
}

export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.kind === "sqlite") return openSqliteStore(config.path, config.decisionLog === undefined ? {} : { decisionLog: config.decisionLog });
  const { kind: _, ...pg } = config;
  return openPgStore(pg);
}

export interface StoreFromEnvOptions {
  /** The SQLite file when TOOLGATE_PG_URL is not set. Default: $TOOLGATE_DB, else "toolgate.db". */
  readonly sqlitePath?: string;
  /**
   * On PostgreSQL, apply pending migrations on open (advisory-locked, safe from many processes)
   * instead of requiring `toolgate migrate` first. Default false.
   */
  readonly migrate?: boolean;
  readonly decisionLog?: DecisionLogOptions;
  /** Default: process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The store the environment names: PostgreSQL when TOOLGATE_PG_URL is set (schema
 * TOOLGATE_PG_SCHEMA, default "public"), else the SQLite file. One call for applications.
 */
export function openStoreFromEnv(opts: StoreFromEnvOptions = {}): Promise<Store> {
  const env = opts.env ?? process.env;
  const config = storeConfigFromEnv(opts.sqlitePath ?? (env[sqlitePathEnvVar] || "toolgate.db"), env);
  const extra = { ...(opts.decisionLog === undefined ? {} : { decisionLog: opts.decisionLog }) };
  return openStore(config.kind === "postgres" ? { ...config, ...extra, ...(opts.migrate === undefined ? {} : { migrate: opts.migrate }) } : { ...config, ...extra });
}
