/** Run state (interrupt flags) on PostgreSQL: plain durable rows. */
import type pg from "pg";
import type { InterruptRecord } from "../store.js";
import { runPrepared } from "./pool.js";

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
