/**
 * The handler's own side table in PostgreSQL: every effect of the test tool is a
 * row here, written by the handler (not by the store), so counting rows counts
 * effects independently of what the runtime recorded.
 */
import type pg from "pg";

export async function createEffectsTable(pool: pg.Pool): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS test_effects (
    seq          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant       text        NOT NULL,
    operation_id text        NOT NULL,
    fence_token  bigint      NOT NULL,
    worker       text        NOT NULL,
    amount       integer     NOT NULL,
    at           timestamptz NOT NULL DEFAULT clock_timestamp()
  )`);
}

export interface EffectRow {
  readonly seq: number;
  readonly operation_id: string;
  readonly fence_token: number;
  readonly worker: string;
  readonly amount: number;
}

/** Performs the effect: one row, whose seq names the reservation. */
export async function applyEffect(
  pool: pg.Pool,
  e: { tenant: string; operation_id: string; fence_token: number; worker: string; amount: number },
): Promise<number> {
  const res = await pool.query<{ seq: string }>(
    `INSERT INTO test_effects (tenant, operation_id, fence_token, worker, amount) VALUES ($1, $2, $3, $4, $5) RETURNING seq`,
    [e.tenant, e.operation_id, e.fence_token, e.worker, e.amount],
  );
  return Number(res.rows[0]!.seq);
}

export async function effectsOf(pool: pg.Pool, tenant: string, operationId: string): Promise<EffectRow[]> {
  const res = await pool.query<{ seq: string; operation_id: string; fence_token: string; worker: string; amount: number }>(
    "SELECT seq, operation_id, fence_token, worker, amount FROM test_effects WHERE tenant = $1 AND operation_id = $2 ORDER BY seq",
    [tenant, operationId],
  );
  return res.rows.map((r) => ({ ...r, seq: Number(r.seq), fence_token: Number(r.fence_token) }));
}
