/** Run state (interrupt flags) and the gates' current policy on PostgreSQL: plain durable rows. */
import type pg from "pg";
import type { CurrentPolicyRecord, InterruptRecord } from "../store.js";
import { runPrepared } from "./pool.js";

export async function setInterrupt(db: pg.Pool, rec: InterruptRecord): Promise<void> {
  await runPrepared(
    db,
    "run_set_interrupt",
    `INSERT INTO interrupts (tenant, run_id, reason, at)
     VALUES ($1, $2, $3, toolgate_ts($4::bigint))
     ON CONFLICT (tenant, run_id) DO UPDATE
       SET reason = excluded.reason, at = excluded.at`,
    [rec.tenant, rec.run_id, rec.reason, rec.at_ms],
  );
}

export async function getInterrupt(db: pg.Pool, tenant: string, runId: string): Promise<InterruptRecord | null> {
  const res = await runPrepared<{ reason: string; at_ms: string }>(
    db,
    "run_get_interrupt",
    `SELECT reason, toolgate_ms(at) AS at_ms
       FROM interrupts WHERE tenant = $1 AND run_id = $2 AND at IS NOT NULL`,
    [tenant, runId],
  );
  const row = res.rows[0];
  return row === undefined ? null : { tenant, run_id: runId, reason: row.reason, at_ms: Number(row.at_ms) };
}

export async function clearInterrupt(db: pg.Pool, tenant: string, runId: string): Promise<void> {
  await runPrepared(
    db,
    "run_clear_interrupt",
    "UPDATE interrupts SET reason = NULL, at = NULL WHERE tenant = $1 AND run_id = $2",
    [tenant, runId],
  );
}

export async function setCurrentPolicy(db: pg.Pool, rec: CurrentPolicyRecord): Promise<void> {
  await runPrepared(
    db,
    "policy_set_current",
    `INSERT INTO current_policy (entrypoint, version, code_version, data_version, owner, updated_at)
     VALUES ($1, $2, $3, $4, $5, toolgate_ts($6::bigint))
     ON CONFLICT (entrypoint) DO UPDATE
       SET version = excluded.version, code_version = excluded.code_version, data_version = excluded.data_version,
           owner = excluded.owner, updated_at = excluded.updated_at`,
    [rec.entrypoint, rec.version, rec.code_version, rec.data_version, rec.owner, rec.updated_at_ms],
  );
}

export async function getCurrentPolicy(db: pg.Pool, entrypoint: string): Promise<CurrentPolicyRecord | null> {
  const res = await runPrepared<Omit<CurrentPolicyRecord, "updated_at_ms"> & { updated_at_ms: string }>(
    db,
    "policy_get_current",
    `SELECT entrypoint, version, code_version, data_version, owner, toolgate_ms(updated_at) AS updated_at_ms
       FROM current_policy WHERE entrypoint = $1`,
    [entrypoint],
  );
  const row = res.rows[0];
  return row === undefined ? null : { ...row, updated_at_ms: Number(row.updated_at_ms) };
}
