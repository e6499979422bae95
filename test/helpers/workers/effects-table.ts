/**
 * The handler's own side table in PostgreSQL: every effect of the test tool is a
 * row here, written by the handler (not by the store), so counting rows counts
 * effects independently of what the runtime recorded.
 */
import type pg from "pg";

export interface EffectInput {
  readonly tenant: string;
  readonly operation_id: string;
  readonly fence_token: number;
  readonly worker: string;
  readonly amount: number;
}

/** Where the test tool's handler performs its effect; `find` is what its reconciler reads. */
export interface EffectSink {
  /** Performs the effect; returns the reservation's sequence number. */
  apply(e: EffectInput): Promise<number>;
  /** The first effect of this operation, if any attempt made one. */
  find(tenant: string, operationId: string): Promise<number | null>;
}

/** The side table in PostgreSQL: effects survive the process that made them. */
export function pgEffects(pool: pg.Pool): EffectSink {
  return {
    apply: (e) => applyEffect(pool, e),
    find: async (tenant, operationId) => (await effectsOf(pool, tenant, operationId))[0]?.seq ?? null,
  };
}

/** In-process effects for the benchmark, so it measures the store path and not a side table. */
export function memoryEffects(): EffectSink {
  const done = new Map<string, number>();
  let seq = 0;
  return {
    apply: async (e) => {
      const s = ++seq;
      if (!done.has(`${e.tenant}\u0000${e.operation_id}`)) done.set(`${e.tenant}\u0000${e.operation_id}`, s);
      return s;
    },
    find: async (tenant, operationId) => done.get(`${tenant}\u0000${operationId}`) ?? null,
  };
}

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
export async function applyEffect(pool: pg.Pool, e: EffectInput): Promise<number> {
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
