-- toolgate store, migration 16: the tables and columns take the names the SQLite store uses,
-- so both stores speak one vocabulary (a time is `<name>_at` timestamptz here, `<name>_at_ms`
-- epoch milliseconds on SQLite). Renames only: no row is rewritten, and SQL-bodied functions
-- and constraints follow the objects they name. The migration runner's advisory lock makes
-- workers starting at once apply it once.

-- The idempotency records are the store's operations (OperationRecord, claimOperation).
ALTER TABLE idempotency_records RENAME TO operations;
ALTER TABLE operations RENAME CONSTRAINT idempotency_records_pkey TO operations_pkey;
ALTER TABLE operations RENAME CONSTRAINT idempotency_records_check TO operations_check;
ALTER INDEX idempotency_records_expires_at RENAME TO operations_expiry;

-- The run state held only the interrupt flag: it is the interrupts table (InterruptRecord).
ALTER TABLE run_state RENAME TO interrupts;
ALTER TABLE interrupts RENAME COLUMN interrupt_reason TO reason;
ALTER TABLE interrupts RENAME COLUMN interrupted_at TO at;
ALTER TABLE interrupts RENAME CONSTRAINT run_state_pkey TO interrupts_pkey;
ALTER TABLE interrupts RENAME CONSTRAINT run_state_check TO interrupts_check;
