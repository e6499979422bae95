/**
 * The ceiling of an approved write on PostgreSQL, for the `[gate]` row of `npm run bench`: the
 * least work any store design does when a write's claim is committed before its effect and its
 * outcome is committed with its decision-log row. Two statements on one connection, each its
 * own autocommit transaction, with no toolgate code: insert the claim row (primary key
 * (tenant, operation_id), no other index), then one statement that updates that row and
 * inserts one log row shaped like the raw anchor's row. Against the raw single-connection
 * insert (one round trip, one commit) this is the highest ratio an approved write can reach.
 */
import pg from "pg";
import { performance } from "node:perf_hooks";

let runs = 0;

/** Two-commit writes per second on one connection (two round trips, two commits each), in tables of its own. */
export async function leastTwoCommitPgWritesPerSec(url: string, n: number): Promise<number> {
  const suffix = `${process.pid}_${runs++}`;
  const ops = `toolgate_ceiling_ops_${suffix}`;
  const log = `toolgate_ceiling_log_${suffix}`;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`DROP TABLE IF EXISTS ${ops}, ${log}`);
    await c.query(`CREATE TABLE ${ops} (tenant text, operation_id text, status text, fence_token bigint, envelope jsonb, PRIMARY KEY (tenant, operation_id))`);
    await c.query(`CREATE TABLE ${log} (seq bigserial PRIMARY KEY, at_ms bigint, tenant text, run_id text, user_id text, tool text,
      operation_id text, decision text, reason text, outcome text)`);
    const claim = `INSERT INTO ${ops} VALUES ($1, $2, 'in_progress', 1, NULL)`;
    const outcome = `WITH done AS (UPDATE ${ops} SET status = 'final', envelope = $3::jsonb WHERE tenant = $1 AND operation_id = $2 AND fence_token = 1 RETURNING operation_id)
      INSERT INTO ${log} (at_ms, tenant, run_id, user_id, tool, operation_id, decision, reason, outcome)
      SELECT $4, $1, 'run_bench', 'bench', 'reserve_funds', operation_id, 'allow', 'approved', 'success' FROM done`;
    const envelope = '{"outcome":"success","value":{"reservation_id":"res_0001","state":"reserved"}}';
    const write = async (i: number): Promise<void> => {
      const op = `op-${i}`;
      await c.query({ name: "ceiling_claim", text: claim, values: ["t_bench", op] });
      await c.query({ name: "ceiling_outcome", text: outcome, values: ["t_bench", op, envelope, Date.now()] });
    };
    for (let i = 0; i < 20; i++) await write(-1 - i);
    const start = performance.now();
    for (let i = 0; i < n; i++) await write(i);
    return n / ((performance.now() - start) / 1000);
  } finally {
    await c.query(`DROP TABLE IF EXISTS ${ops}, ${log}`).catch(() => undefined);
    await c.end();
  }
}
