/**
 * Chooses the store: explicit configuration first; otherwise TOOLGATE_PG_URL
 * selects the shared PostgreSQL store (schema from TOOLGATE_PG_SCHEMA, default
 * "public"), and without it the embedded SQLite file is the default.
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
