/**
 * The decision log on PostgreSQL: a batch is one INSERT (one round trip, one
 * commit) from a JSON array, reads by id and by filters, purge past retention.
 * Enters: entries and queries. Leaves: records.
 */
import type pg from "pg";
import type { JsonObject, JsonValue } from "../../manifest.js";
import type { DecisionLogEntry, DecisionLogRecord, DecisionQuery, ShadowDecision } from "../store.js";
import { decisionContent } from "../chain/content.js";
import { contentHash } from "../chain/link.js";
import { decisionValues, jsonEmbedded, toDecisionRecord } from "../rows.js";
import type { DecisionColumns, DecisionValues } from "../rows.js";
import { purgeDecisionsSql } from "./audit-chain.js";
import { runPrepared } from "./pool.js";
import { pgJson } from "./rows.js";

interface DecisionRow extends DecisionColumns<JsonObject | JsonValue | string[] | ShadowDecision> {
  decision_id: string;
}

// "user" is a keyword in SQL: both stores name the column user_id (the record's `user`).
const columns = `decision_id, toolgate_ms(at) AS at_ms, tenant, run_id, user_id, tool, operation_id, fingerprint,
  decision, reason, policy_version, outcome, outcome_reason, path, input, result, erased, eval_ns, shadow, error,
  toolgate_ms(expires_at) AS expires_at_ms, labels, trace_id, span_id`;

const toRecord = (row: DecisionRow): DecisionLogRecord => toDecisionRecord(row, row.decision_id, pgJson);

/**
 * The entries as the JSON array `decisionInsertSql` reads, in one JSON.stringify. The input,
 * the erased pointers and the shadow answer are embedded as JSON (parsed once, by the
 * `::jsonb` of the array): for them a JSON null and SQL NULL mean the same (none). The
 * result is passed as text inside the array, so a JSON `null` result stays distinguishable
 * from none. `own` marks entries that a statement inserts only under a condition of its own
 * (see operations.ts). `chained`: each row carries its content hash, which the audit chain's
 * trigger links (migration 012); without it the row is written unchained.
 */
export function decisionRows(entries: readonly DecisionLogEntry[], own = false, chained = true): object[] {
  return entries.map((e, n) => {
    // The values are this row's own object: the statement's fields are set on it (a copy cost a third more per row).
    const row: DecisionValues<unknown> & { n?: number; own?: boolean; content_hash?: string | null } = decisionValues(e, jsonEmbedded);
    row.n = n;
    row.own = own;
    row.content_hash = chained ? contentHash(decisionContent(e, row.decision_id)) : null;
    return row;
  });
}

/**
 * INSERT of the rows in the JSON array parameter `param`, in array order, filtered by `where`.
 * The chain locks of all the rows' tenants are taken first, in one order (an InitPlan, run
 * once), so two statements writing several tenants cannot deadlock in the per-row trigger.
 */
export function decisionInsertSql(param: string, where = "true"): string {
  return `INSERT INTO decision_log (decision_id, at, tenant, run_id, user_id, tool, operation_id, fingerprint, decision, reason,
       policy_version, outcome, outcome_reason, path, input, result, erased, eval_ns, shadow, shadow_disagrees, expires_at, error,
       labels, trace_id, span_id, content_hash)
     SELECT r.decision_id, toolgate_ts(r.at_ms), r.tenant, r.run_id, r.user_id, r.tool, r.operation_id, r.fingerprint,
       r.decision, r.reason, r.policy_version, r.outcome, r.outcome_reason, r.path, r.input, r.result::jsonb,
       COALESCE(r.erased, '[]'::jsonb), r.eval_ns, r.shadow, r.shadow_disagrees, toolgate_ts(r.expires_at_ms), r.error,
       r.labels, r.trace_id, r.span_id, r.content_hash
     FROM jsonb_to_recordset(${param}::jsonb) AS r(decision_id text, at_ms bigint, tenant text, run_id text,
       user_id text, tool text, operation_id text, fingerprint text, decision text, reason text, policy_version text,
       outcome text, outcome_reason text, path text, input jsonb, result text, erased jsonb, eval_ns bigint, shadow jsonb,
       shadow_disagrees boolean, expires_at_ms bigint, error jsonb, labels jsonb, trace_id text, span_id text, n bigint, own boolean,
       content_hash text)
     WHERE (${where}) AND (SELECT toolgate_chain_lock_rows(${param}::jsonb))
     ORDER BY r.own, r.n`;
}

/**
 * One entry as 26 statement parameters, in the column order of `decisionInsertOneSql`:
 * a statement carrying a single entry skips building and unpacking the JSON array.
 * The last is the content hash the audit chain links (null: written unchained).
 */
export function decisionParams(e: DecisionLogEntry, chained = true): unknown[] {
  const v = decisionValues(e);
  return [
    v.decision_id, v.at_ms, v.tenant, v.run_id, v.user_id, v.tool, v.operation_id, v.fingerprint,
    v.decision, v.reason, v.policy_version, v.outcome, v.outcome_reason, v.path,
    v.input, v.result, v.erased, v.eval_ns, v.shadow,
    v.shadow_disagrees, v.expires_at_ms, v.error, v.labels, v.trace_id, v.span_id,
    chained ? contentHash(decisionContent(e, v.decision_id)) : null,
  ];
}

/** INSERT of one entry from the 26 parameters starting at `$first` (see decisionParams), when `where` holds. */
export function decisionInsertOneSql(first: number, where = "true"): string {
  const p = (k: number) => `$${first + k}`;
  return `INSERT INTO decision_log (decision_id, at, tenant, run_id, user_id, tool, operation_id, fingerprint, decision, reason,
       policy_version, outcome, outcome_reason, path, input, result, erased, eval_ns, shadow, shadow_disagrees, expires_at, error,
       labels, trace_id, span_id, content_hash)
     SELECT ${p(0)}::text, toolgate_ts(${p(1)}::bigint), ${p(2)}::text, ${p(3)}::text, ${p(4)}::text, ${p(5)}::text, ${p(6)}::text,
       ${p(7)}::text, ${p(8)}::text, ${p(9)}::text, ${p(10)}::text, ${p(11)}::text, ${p(12)}::text, ${p(13)}::text,
       ${p(14)}::jsonb, ${p(15)}::jsonb, ${p(16)}::jsonb, ${p(17)}::bigint, ${p(18)}::jsonb, ${p(19)}::boolean, toolgate_ts(${p(20)}::bigint),
       ${p(21)}::jsonb, ${p(22)}::jsonb, ${p(23)}::text, ${p(24)}::text, ${p(25)}::text
     WHERE ${where}`;
}

/**
 * One INSERT (one round trip, one commit) for the whole batch; answers the commit's
 * `synchronous_commit`. Unless `synchronous`, the commit does not wait for its WAL flush
 * (`synchronous_commit = off` for this transaction only): the rows are visible at once and
 * reach disk within a few hundred milliseconds (3 x wal_writer_delay); a server crash in
 * between loses them, as a process killed before a flush loses its queued entries. Any
 * later synchronous commit (an outcome) flushes them too, since the WAL is written in order.
 */
export async function insertDecisions(db: pg.Pool, entries: readonly DecisionLogEntry[], synchronous: boolean, chained = true): Promise<string> {
  const res = await runPrepared<{ synchronous_commit: string }>(
    db,
    synchronous ? "log_append_batch" : "log_append_batch_async",
    synchronous ? batchSql : asyncBatchSql,
    [JSON.stringify(decisionRows(entries, false, chained))],
  );
  return res.rows[0]?.synchronous_commit ?? "";
}

const batchWith = (where: string) =>
  `WITH ins AS (${decisionInsertSql("$1", where)} RETURNING 1) SELECT current_setting('synchronous_commit') AS synchronous_commit FROM (SELECT count(*) FROM ins) n`;
const batchSql = batchWith("true");
// set_config(..., true) lasts until the end of the statement's own transaction, i.e. its commit.
const asyncBatchSql = batchWith("set_config('synchronous_commit', 'off', true) IS NOT NULL");

export async function getDecision(db: pg.Pool, decisionId: string): Promise<DecisionLogRecord | null> {
  const res = await runPrepared<DecisionRow>(db, "log_get", `SELECT ${columns} FROM decision_log WHERE decision_id = $1`, [decisionId]);
  const row = res.rows[0];
  return row === undefined ? null : toRecord(row);
}

export async function listDecisions(db: pg.Pool, query: DecisionQuery): Promise<DecisionLogRecord[]> {
  const where: string[] = [];
  const params: (string | number | boolean)[] = [];
  const add = (sql: (n: number) => string, value: string | number | boolean): void => {
    params.push(value);
    where.push(sql(params.length));
  };
  if (query.tenant !== undefined) add((n) => `tenant = $${n}`, query.tenant);
  if (query.operation_id !== undefined) add((n) => `operation_id = $${n}`, query.operation_id);
  if (query.tool !== undefined) add((n) => `tool = $${n}`, query.tool);
  if (query.reason !== undefined) add((n) => `(reason = $${n} OR outcome_reason = $${n})`, query.reason);
  if (query.since_ms !== undefined) add((n) => `at >= toolgate_ts($${n}::bigint)`, query.since_ms);
  if (query.shadow_disagrees !== undefined) add((n) => `shadow_disagrees = $${n}`, query.shadow_disagrees);
  params.push(query.limit ?? 1000);
  const res = await db.query<DecisionRow>(
    `SELECT ${columns} FROM decision_log ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY seq DESC LIMIT $${params.length}`,
    params,
  );
  return res.rows.map(toRecord);
}

export async function purgeDecisions(db: pg.Pool, nowMs: number): Promise<number> {
  const res = await db.query<{ n: number }>(purgeDecisionsSql, [nowMs]);
  return res.rows[0]?.n ?? 0;
}
