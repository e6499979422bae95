/** Run state (interrupt flags) and the decision log on PostgreSQL: plain durable rows. */
import type pg from "pg";
import type { DecisionLogEntry, DecisionQuery, InterruptRecord } from "../store.js";
import { runPrepared } from "./pool.js";
import { decisionColumns, toDecision, type DecisionRow } from "./rows.js";

export async function setInterrupt(db: pg.Pool, rec: InterruptRecord): Promise<void> {
  await runPrepared(
    db,
    "run_set_interrupt",
    `INSERT INTO run_state (tenant, run_id, interrupt_reason, interrupted_at)
     VALUES ($1, $2, $3, toolgate_ts($4::bigint))
     ON CONFLICT (tenant, run_id) DO UPDATE
       SET interrupt_reason = excluded.interrupt_reason, interrupted_at = excluded.interrupted_at`,
    [rec.tenant, rec.run_id, rec.reason, rec.at_ms],
  );
}

export async function getInterrupt(db: pg.Pool, tenant: string, runId: string): Promise<InterruptRecord | null> {
  const res = await runPrepared<{ reason: string; at_ms: string }>(
    db,
    "run_get_interrupt",
    `SELECT interrupt_reason AS reason, toolgate_ms(interrupted_at) AS at_ms
       FROM run_state WHERE tenant = $1 AND run_id = $2 AND interrupted_at IS NOT NULL`,
    [tenant, runId],
  );
  const row = res.rows[0];
  return row === undefined ? null : { tenant, run_id: runId, reason: row.reason, at_ms: Number(row.at_ms) };
}

export async function clearInterrupt(db: pg.Pool, tenant: string, runId: string): Promise<void> {
  await runPrepared(
    db,
    "run_clear_interrupt",
    "UPDATE run_state SET interrupt_reason = NULL, interrupted_at = NULL WHERE tenant = $1 AND run_id = $2",
    [tenant, runId],
  );
}

export async function appendDecision(db: pg.Pool, e: DecisionLogEntry): Promise<void> {
  await runPrepared(
    db,
    "log_append",
    `INSERT INTO decision_log (at, tenant, run_id, user_id, tool, operation_id, fingerprint, decision, reason,
       policy_version, outcome, outcome_reason)
     VALUES (toolgate_ts($1::bigint), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      e.at_ms,
      e.tenant,
      e.run_id,
      e.user,
      e.tool,
      e.operation_id,
      e.fingerprint,
      e.decision,
      e.reason,
      e.policy_version,
      e.outcome,
      e.outcome_reason,
    ],
  );
}

export async function listDecisions(db: pg.Pool, query: DecisionQuery = {}): Promise<DecisionLogEntry[]> {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (query.tenant !== undefined) params.push(query.tenant), where.push(`tenant = $${params.length}`);
  if (query.operation_id !== undefined) params.push(query.operation_id), where.push(`operation_id = $${params.length}`);
  params.push(query.limit ?? 1000);
  const res = await db.query<DecisionRow>(
    `SELECT ${decisionColumns} FROM decision_log ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY seq DESC LIMIT $${params.length}`,
    params,
  );
  return res.rows.map(toDecision);
}
