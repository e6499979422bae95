export type * from "./store.js";
export { planClaim, planRecord } from "./claim.js";
export type { ClaimPlan, RecordPlan } from "./claim.js";
export { openSqliteStore } from "./sqlite/sqlite-store.js";
export type { SqliteStoreOptions } from "./sqlite/sqlite-store.js";
export { openPgStore, migrate as migratePgStore } from "./postgres/index.js";
export type { PgStoreOptions } from "./postgres/index.js";
export { openStore, storeConfigFromEnv } from "./open-store.js";
export type { StoreConfig } from "./open-store.js";
