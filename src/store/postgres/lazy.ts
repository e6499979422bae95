/**
 * The PostgreSQL store as the root entry exposes it: each function imports the store
 * (and `pg`) on its first call, so a program that never opens PostgreSQL never loads it.
 * `toolgate/postgres` exports the same functions without the indirection.
 */
import type pg from "pg";
import type { MigrateResult, Migration } from "./migrations.js";
import type { PgStoreOptions } from "./pg-store.js";
import type { Store } from "../store.js";

/** Opens the PostgreSQL store; fails with `schema_not_migrated` when the schema is behind the code. */
export async function openPgStore(opts: PgStoreOptions = {}): Promise<Store> {
  const { openPgStore: open } = await import("./pg-store.js");
  return open(opts);
}

/** Brings `schema` up to the latest migration (advisory-locked, one transaction). */
export async function migratePgStore(
  pool: pg.Pool,
  opts: { readonly schema?: string; readonly migrations?: readonly Migration[] } = {},
): Promise<MigrateResult> {
  const { migrate } = await import("./migrations.js");
  return migrate(pool, opts);
}
