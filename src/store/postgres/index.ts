export { openPgStore } from "./pg-store.js";
export type { PgStoreOptions } from "./pg-store.js";
export { migrate, loadMigrations, defaultMigrationsDir } from "./migrations.js";
export type { Migration, MigrateResult } from "./migrations.js";
export { createPgPool, resolvePgUrl, pgUrlEnvVar } from "./pool.js";
export type { PgConnectionOptions } from "./pool.js";
export { PgStoreError, isPgStoreError } from "./errors.js";
export type { PgStoreErrorCode } from "./errors.js";
