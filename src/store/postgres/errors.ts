/** Errors raised by the PostgreSQL store and its migration runner. Codes are stable snake_case. */

export type PgStoreErrorCode =
  | "pg_url_missing"
  | "pg_invalid_schema_name"
  | "migration_file_invalid"
  | "migration_checksum_mismatch"
  | "migration_unknown_version"
  | "migration_failed"
  | "schema_not_migrated"
  | "store_closed";

export class PgStoreError extends Error {
  override name = "PgStoreError";
  constructor(
    readonly code: PgStoreErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

export function isPgStoreError(err: unknown): err is PgStoreError {
  return err instanceof Error && err.name === "PgStoreError";
}
