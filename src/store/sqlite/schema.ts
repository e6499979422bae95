/**
 * DDL of the SQLite store. Versioned with `PRAGMA user_version` so later changes can migrate
 * (2: decision_log.seq without AUTOINCREMENT; 3: the `user` columns are `user_id`, as on
 * PostgreSQL; files made before are changed in place by ./migrate.ts). Tables and columns have
 * the PostgreSQL store's names; a time is `<name>_at_ms` (INTEGER epoch ms) where PostgreSQL has
 * `<name>_at` (timestamptz).
 */
export const sqliteSchemaVersion = 3;

export const sqliteSchema = `
CREATE TABLE IF NOT EXISTS operations (
  tenant              TEXT    NOT NULL,
  operation_id        TEXT    NOT NULL,
  tool                TEXT    NOT NULL,
  fingerprint         TEXT    NOT NULL,
  status              TEXT    NOT NULL CHECK (status IN ('in_progress','retryable','unknown','final')),
  fence_token         INTEGER NOT NULL,
  lease_owner         TEXT    NOT NULL,
  lease_expires_at_ms INTEGER NOT NULL,
  attempts            INTEGER NOT NULL,
  envelope            TEXT,
  created_at_ms       INTEGER NOT NULL,
  updated_at_ms       INTEGER NOT NULL,
  expires_at_ms       INTEGER NOT NULL,
  PRIMARY KEY (tenant, operation_id)
);
CREATE INDEX IF NOT EXISTS operations_expiry ON operations (expires_at_ms);

CREATE TABLE IF NOT EXISTS approvals (
  id             TEXT    PRIMARY KEY,
  tenant         TEXT    NOT NULL,
  run_id         TEXT    NOT NULL,
  requested_by   TEXT    NOT NULL,
  tool           TEXT    NOT NULL,
  args           TEXT    NOT NULL,
  preview        TEXT    NOT NULL,
  fingerprint    TEXT    NOT NULL,
  operation_id   TEXT,
  created_at_ms  INTEGER NOT NULL,
  expires_at_ms  INTEGER NOT NULL,
  policy_version TEXT    NOT NULL,
  status         TEXT    NOT NULL CHECK (status IN ('pending','approved','edited','rejected','revoked','expired')),
  args_hash            TEXT    NOT NULL DEFAULT '',
  policy_code_version  TEXT    NOT NULL DEFAULT '',
  policy_data_version  TEXT    NOT NULL DEFAULT '',
  consumed_by          TEXT,
  consumed_at_ms       INTEGER
);
CREATE INDEX IF NOT EXISTS approvals_pending ON approvals (tenant, fingerprint, status);

CREATE INDEX IF NOT EXISTS approvals_by_tenant ON approvals (tenant, created_at_ms DESC, id DESC);

-- The call behind an approval, so the host can run it after the decision (the inbox's resume).
CREATE TABLE IF NOT EXISTS pending_calls (
  approval_id     TEXT    PRIMARY KEY REFERENCES approvals (id) ON DELETE CASCADE,
  tenant          TEXT    NOT NULL,
  run_id          TEXT    NOT NULL,
  user_id         TEXT    NOT NULL,
  roles           TEXT    NOT NULL,
  tool            TEXT    NOT NULL,
  args            TEXT    NOT NULL,
  operation_id    TEXT,
  policy_reason   TEXT,
  created_at_ms   INTEGER NOT NULL,
  replaced_by     TEXT,
  announced_at_ms INTEGER
);
CREATE INDEX IF NOT EXISTS pending_calls_unannounced ON pending_calls (created_at_ms) WHERE announced_at_ms IS NULL;

CREATE TABLE IF NOT EXISTS approval_events (
  seq            INTEGER PRIMARY KEY AUTOINCREMENT,
  approval_id    TEXT    NOT NULL REFERENCES approvals (id),
  decision       TEXT    NOT NULL CHECK (decision IN ('approve','edit','reject','revoke')),
  approver       TEXT    NOT NULL,
  reason         TEXT,
  edited_args    TEXT,
  decided_at_ms  INTEGER NOT NULL,
  policy_version TEXT    NOT NULL,
  approver_roles       TEXT    NOT NULL DEFAULT '[]',
  policy_code_version  TEXT    NOT NULL DEFAULT '',
  policy_data_version  TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS approval_events_by_approval ON approval_events (approval_id, seq);

CREATE TABLE IF NOT EXISTS interrupts (
  tenant TEXT    NOT NULL,
  run_id TEXT    NOT NULL,
  reason TEXT    NOT NULL,
  at_ms  INTEGER NOT NULL,
  PRIMARY KEY (tenant, run_id)
);

-- seq is the rowid (no AUTOINCREMENT, which would update sqlite_sequence on every insert): a new
-- row's seq is above every row in the table, so newest first is ORDER BY seq DESC.
CREATE TABLE IF NOT EXISTS decision_log (
  seq            INTEGER PRIMARY KEY,
  at_ms          INTEGER NOT NULL,
  tenant         TEXT    NOT NULL,
  run_id         TEXT    NOT NULL,
  user_id        TEXT    NOT NULL,
  tool           TEXT    NOT NULL,
  operation_id   TEXT,
  fingerprint    TEXT,
  decision       TEXT    NOT NULL,
  reason         TEXT,
  policy_version TEXT,
  outcome        TEXT    NOT NULL,
  outcome_reason TEXT
);
CREATE INDEX IF NOT EXISTS decision_log_by_tenant ON decision_log (tenant, seq);
CREATE INDEX IF NOT EXISTS decision_log_by_run ON decision_log (tenant, run_id, seq);

-- The policy a gate put in force most recently, per entrypoint (last writer wins).
CREATE TABLE IF NOT EXISTS current_policy (
  entrypoint    TEXT    PRIMARY KEY,
  version       TEXT    NOT NULL,
  code_version  TEXT    NOT NULL,
  data_version  TEXT    NOT NULL,
  owner         TEXT    NOT NULL,
  updated_at_ms INTEGER NOT NULL
);
`;

const chainColumns = [
  ["content_hash", "TEXT"],
  ["chain_seq", "INTEGER"],
  ["prev_link", "TEXT"],
  ["link", "TEXT"],
] as const;

/**
 * Columns added to tables of existing files (SQLite has no ADD COLUMN IF NOT EXISTS):
 * `ensureSqliteColumns` adds the missing ones, then the indexes over them are created.
 */
export const sqliteAddedColumns: Readonly<Record<string, readonly (readonly [name: string, type: string])[]>> = {
  approvals: [
    ["args_hash", "TEXT NOT NULL DEFAULT ''"],
    ["policy_code_version", "TEXT NOT NULL DEFAULT ''"],
    ["policy_data_version", "TEXT NOT NULL DEFAULT ''"],
    ["consumed_by", "TEXT"],
    ["consumed_at_ms", "INTEGER"],
  ],
  approval_events: [
    ["approver_roles", "TEXT NOT NULL DEFAULT '[]'"],
    ["policy_code_version", "TEXT NOT NULL DEFAULT ''"],
    ["policy_data_version", "TEXT NOT NULL DEFAULT ''"],
    ...chainColumns,
  ],
  decision_log: [
    // OPA decision-log event fields; input/result/erased/shadow are JSON text.
    ["decision_id", "TEXT"],
    ["path", "TEXT"],
    ["input", "TEXT"],
    ["result", "TEXT"],
    ["erased", "TEXT"],
    ["eval_ns", "INTEGER"],
    ["shadow", "TEXT"],
    ["shadow_disagrees", "INTEGER"],
    // NULL (entries written before retention existed) is never purged.
    ["expires_at_ms", "INTEGER"],
    // A thrown handler error (JSON text): message and stack, sensitive values erased.
    ["error", "TEXT"],
    // The audit chain (./audit-chain.ts); NULL on entries written before it existed.
    ...chainColumns,
    // OPA's labels (JSON text), trace_id and span_id; NULL on entries written before them.
    ["labels", "TEXT"],
    ["trace_id", "TEXT"],
    ["span_id", "TEXT"],
  ],
};

export const sqliteIndexesAfterColumns = `
CREATE UNIQUE INDEX IF NOT EXISTS decision_log_by_id ON decision_log (decision_id);
CREATE INDEX IF NOT EXISTS decision_log_by_time ON decision_log (at_ms);
CREATE INDEX IF NOT EXISTS decision_log_expiry ON decision_log (expires_at_ms) WHERE expires_at_ms IS NOT NULL;
`;
