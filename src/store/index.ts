export type * from "./store.js";
export { planClaim, planRecord } from "./claim.js";
export type { ClaimPlan, RecordPlan } from "./claim.js";
export { openSqliteStore } from "./sqlite/sqlite-store.js";
export type { SqliteStoreOptions } from "./sqlite/sqlite-store.js";
export { StoreOpenError, isStoreOpenError, openStore, openStoreFromEnv, storeConfigFromEnv } from "./open-store.js";
export type { OpenStoreOptions, StoreConfig, StoreFromEnvOptions, StoreOpenErrorCode } from "./open-store.js";
export { DecisionBatch } from "./decision-batch.js";
export type { DecisionLogOptions } from "./decision-batch.js";
