/**
 * Limit accounting on PostgreSQL. A claim with limits runs in one transaction: it takes a
 * transaction-scoped advisory lock on each limit key (SHA-256 of tenant, limit and key, in a fixed
 * order, so two claims never wait on each other in a cycle), reads the figures, refuses when
 * they moved or the call does not fit (claim.ts `checkLimits`), and otherwise claims with the
 * usual claim statements and writes its `limit_entries` rows before COMMIT. Every claim of a key
 * holds its lock until its entry is committed, so the figures a claim read hold until it commits;
 * claims of other keys never wait (no global lock).
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import { checkGuard, checkLimits, planClaim } from "../claim.js";
import type { ClaimRequest, ClaimResult, LimitClaim, LimitFigures, LimitFiguresRequest, LimitKey, OperationRecord } from "../store.js";
import { claimParams, claimSql, freshClaimSql, readGuardState } from "./operations.js";
import { operationArray, operationFromArray, toOperation } from "./rows.js";

// $1 tenant, $2 limit, $3 key, $4 excluded operation id, $5 window start (ms), $6 now (ms).
const figuresSql = `
SELECT COUNT(*)::bigint AS count, COALESCE(SUM(e.amount), 0)::double precision AS sum
  FROM limit_entries e
  JOIN operations o ON o.tenant = e.tenant AND o.operation_id = e.operation_id AND toolgate_ms(o.created_at) = e.claimed_at_ms
 WHERE e.tenant = $1 AND e.limit_name = $2 AND e.limit_key = $3 AND e.operation_id <> $4
   AND o.created_at > toolgate_ts($5::bigint)
   AND (CASE WHEN o.status = 'final'
             THEN coalesce(o.envelope->>'outcome' = 'success' OR o.envelope->>'reason' IN ('timeout', 'outcome_unknown'), false)
             ELSE o.status IN ('in_progress', 'unknown') AND o.lease_expires_at > toolgate_ts($6::bigint) END)`;

const upsertSql = `
INSERT INTO limit_entries (tenant, limit_name, limit_key, operation_id, amount, claimed_at_ms) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (tenant, limit_name, operation_id) DO UPDATE
  SET limit_key = excluded.limit_key, amount = excluded.amount, claimed_at_ms = excluded.claimed_at_ms`;


async function figuresOf(db: pg.Pool | pg.PoolClient, req: LimitFiguresRequest): Promise<Record<string, LimitFigures>> {
  const out: Record<string, LimitFigures> = {};
  for (const k of req.keys) {
    const res = await db.query<{ count: string; sum: number }>(figuresSql, [req.tenant, k.name, k.key, req.operation_id ?? "", req.now_ms - k.window_ms, req.now_ms]);
    out[k.name] = { count: Number(res.rows[0]?.count ?? 0), sum: Number(res.rows[0]?.sum ?? 0) };
  }
  return out;
}

export const readLimitFigures = (db: pg.Pool, req: LimitFiguresRequest): Promise<Record<string, LimitFigures>> => figuresOf(db, req);

/** The advisory lock of a limit key: the first 8 bytes of SHA-256 of [tenant, limit, key], as a signed int8 literal. */
const lockId = (tenant: string, k: LimitKey): string =>
  BigInt.asIntN(64, BigInt(`0x${createHash("sha256").update(JSON.stringify([tenant, k.name, k.key])).digest("hex").slice(0, 16)}`)).toString();

/**
 * BEGIN, the key locks (in one order for every claim, so none waits in a cycle) and the record
 * locked FOR UPDATE, in one round trip: a simple-protocol query, so the text carries the values
 * (the lock ids are integers; tenant and operation id are quoted with escapeLiteral).
 */
const openSql = (client: pg.PoolClient, req: ClaimRequest, limits: readonly LimitClaim[]): string =>
  [
    "BEGIN",
    ...[...new Set(limits.map((k) => lockId(req.tenant, k)))].sort().map((id) => `SELECT pg_advisory_xact_lock(${id}::bigint)`),
    `SELECT ${operationArray} AS op FROM operations WHERE tenant = ${client.escapeLiteral(req.tenant)} AND operation_id = ${client.escapeLiteral(req.operation_id)} FOR UPDATE`,
  ].join(";\n");

/** The claim with its limits, in one transaction (see the file comment). */
export async function claimLimited(db: pg.Pool, req: ClaimRequest, limits: readonly LimitClaim[]): Promise<ClaimResult> {
  for (;;) {
    const client = await db.connect();
    try {
      const opened = (await client.query(openSql(client, req, limits))) as unknown as pg.QueryResult<{ op: unknown[] }>[];
      const row = opened.at(-1)?.rows[0];
      const current = row === undefined ? null : toOperation(operationFromArray(row.op));
      const result = await claimInTransaction(client, req, limits, current);
      await client.query(result.kind === "claimed" ? "COMMIT" : "ROLLBACK");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      // Two first claims of one operation id under different keys: the loser sees the winner's row next time.
      if ((err as { code?: unknown }).code === "23505") continue;
      throw err;
    } finally {
      client.release();
    }
  }
}

/** The claim's decision under the key locks, with the record as read FOR UPDATE. */
async function claimInTransaction(client: pg.PoolClient, req: ClaimRequest, limits: readonly LimitClaim[], current: OperationRecord | null): Promise<ClaimResult> {
  if (req.guard !== undefined) {
    const refused = checkGuard(req, await readGuardState(client, req.tenant, req.guard));
    if (refused !== null) return refused;
  }
  const plan = planClaim(current, req);
  if (plan.write === null) return plan.result;
  const refused = checkLimits(req, await figuresOf(client, { tenant: req.tenant, operation_id: req.operation_id, now_ms: req.now_ms, keys: limits }));
  if (refused !== null) return refused;
  const params = claimParams(req);
  let record: OperationRecord;
  let previous: OperationRecord["status"] | null = null;
  const inserted = await client.query<{ inserted: boolean }>(freshClaimSql, params);
  if (inserted.rows[0]?.inserted === true) {
    record = plan.write;
  } else {
    const claimed = await client.query<{ op: unknown[] }>(claimSql, params);
    const op = claimed.rows[0]?.op;
    // The row is locked and the plan said claimable, so the statement claims; if not, say what is there.
    if (op === undefined) return planClaim(current, { ...req, now_ms: req.now_ms }).result;
    const r = operationFromArray(op);
    record = toOperation(r);
    previous = r.claimed_from === null ? null : (r.claimed_from as OperationRecord["status"]);
  }
  for (const l of limits) await client.query(upsertSql, [record.tenant, l.name, l.key, record.operation_id, l.amount, record.created_at_ms]);
  return { kind: "claimed", record, previous };
}

/** Entries whose operation incarnation is gone. */
export async function purgeLimitEntries(db: pg.Pool): Promise<number> {
  const res = await db.query(`DELETE FROM limit_entries e WHERE NOT EXISTS (SELECT 1 FROM operations o
    WHERE o.tenant = e.tenant AND o.operation_id = e.operation_id AND toolgate_ms(o.created_at) = e.claimed_at_ms)`);
  return res.rowCount ?? 0;
}
