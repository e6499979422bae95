/**
 * Limit accounting on PostgreSQL. A claim with limits runs in one transaction: it takes a
 * transaction-scoped advisory lock on each limit key (SHA-256 of tenant, limit and key, in a fixed
 * order, so two claims never wait on each other in a cycle), reads the figures, refuses when
 * they moved or the call does not fit (claim.ts `checkLimits`), and otherwise claims with the
 * usual claim statements and writes its `limit_entries` rows before COMMIT. Every claim of a key
 * holds its lock until its entry is committed, so the figures a claim read hold until it commits;
 * claims of other keys never wait (no global lock).
 *
 * Round trips: the claim is two (BEGIN, the locks, the record FOR UPDATE, the guard's state and
 * the figures; then the claim, the entries and COMMIT), simple-protocol queries (several
 * statements, one message) whose text carries the values: `inlineParams` quotes each one with
 * pg's escapeLiteral or writes a checked number. Claim-first with limits is one prepared
 * statement (claimFirstLimited).
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { checkGuard, checkLimits, planClaim } from "../claim.js";
import type { ClaimFirstRequest, ClaimFirstResult, ClaimRequest, ClaimResult, LimitClaim, LimitFigures, LimitFiguresRequest, LimitKey, OperationRecord } from "../store.js";
import { claimParams, claimSql, guardStateOf, guardStateSql, insertClaimSql } from "./operations.js";
import type { GuardRow } from "./operations.js";
import { claimFirstResult } from "./claim-first.js";
import { runPreparedValue } from "./pool.js";
import { approvalColumns, latestEventJoin, operationArray, operationFromArray, toOperation } from "./rows.js";
import type { ApprovalRow } from "./rows.js";

/** A SQL literal of a parameter value (text, a finite number, a boolean or NULL). */
function literal(v: unknown): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error(`postgres limits: ${v} is not a finite number`);
    return String(v);
  }
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return pg.escapeLiteral(v);
  throw new Error(`postgres limits: no literal for a ${typeof v}`);
}

/** `sql` with each `$n` replaced by the literal of `params[n - 1]` (the statements here have no other `$`). */
export const inlineParams = (sql: string, params: readonly unknown[]): string =>
  sql.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= params.length) throw new Error(`postgres limits: no parameter $${n}`);
    return literal(params[i]);
  });

/** One row per limit key: (name, key, window start, amount, max_sum, max_count). */
function keyRows(keys: readonly (LimitKey & Partial<Pick<LimitClaim, "amount" | "max_sum" | "max_count">>)[], nowMs: number): string {
  const rows = keys.map(
    (k) =>
      `(${literal(k.name)}::text, ${literal(k.key)}::text, ${literal(nowMs - k.window_ms)}::bigint, ${literal(k.amount ?? 0)}::double precision, ` +
      `${literal(k.max_sum ?? null)}::double precision, ${literal(k.max_count ?? null)}::bigint)`,
  );
  return `(VALUES ${rows.join(", ")}) AS k (name, key, since, amount, max_sum, max_count)`;
}

/**
 * Each key's figures, one row per key (name, count, sum), for the keys of `keys` (keyRows): the
 * entries of the window that count (migration 017: `counts` follows the record; a call counts
 * when it succeeded, ended in a final timeout or outcome_unknown, or is claimed with no outcome
 * recorded, in flight or crashed and not yet reconciled, whatever its lease). One range of the
 * index limit_entries_window, no record read.
 */
const figuresSql = (tenant: string, exclude: string, keys: string): string => `
SELECT k.name, k.amount, k.max_sum, k.max_count, f.count, f.sum FROM ${keys} CROSS JOIN LATERAL (
  SELECT COUNT(*)::bigint AS count, COALESCE(SUM(e.amount), 0)::double precision AS sum
    FROM limit_entries e
   WHERE e.tenant = ${literal(tenant)} AND e.limit_name = k.name AND e.limit_key = k.key AND e.claimed_at_ms > k.since
     AND e.counts AND e.operation_id <> ${literal(exclude)}) f`;

type FigureRow = { name: string; count: string; sum: number };

const figuresFrom = (rows: readonly FigureRow[]): Record<string, LimitFigures> => {
  const out: Record<string, LimitFigures> = {};
  for (const r of rows) out[r.name] = { count: Number(r.count), sum: Number(r.sum) };
  return out;
};

/** The figures of every key of the request, in one statement. */
export async function readLimitFigures(db: pg.Pool, req: LimitFiguresRequest): Promise<Record<string, LimitFigures>> {
  if (req.keys.length === 0) return {};
  const res = await db.query<FigureRow>(figuresSql(req.tenant, req.operation_id ?? "", keyRows(req.keys, req.now_ms)));
  return figuresFrom(res.rows);
}

/** The advisory lock of a limit key: the first 8 bytes of SHA-256 of [tenant, limit, key], as a signed int8 literal. */
const lockId = (tenant: string, k: LimitKey): string =>
  BigInt.asIntN(64, BigInt(`0x${createHash("sha256").update(JSON.stringify([tenant, k.name, k.key])).digest("hex").slice(0, 16)}`)).toString();

/** The key locks, in one order for every claim, so none waits in a cycle. */
const lockSql = (tenant: string, limits: readonly LimitKey[]): string[] =>
  [...new Set(limits.map((k) => lockId(tenant, k)))].sort().map((id) => `SELECT pg_advisory_xact_lock(${id}::bigint)`);

// The guard's state as readGuardState reads it ($1 tenant, $9 run_id, $10 approval_id of claimParams).
const guardSql = guardStateSql("$1::text", "$9::text", "$10::text");

/** The entries of a claimed record: one per limit, from the rows `claimed` (a CTE or table with created_at). */
const entriesSql = (tenant: string, operationId: string, limits: readonly LimitClaim[], nowMs: number, claimed: string): string => `
INSERT INTO limit_entries (tenant, limit_name, limit_key, operation_id, amount, claimed_at_ms, counts)
SELECT ${literal(tenant)}, k.name, k.key, ${literal(operationId)}, k.amount, toolgate_ms(c.created_at), true FROM ${claimed} c CROSS JOIN ${keyRows(limits, nowMs)}
ON CONFLICT (tenant, limit_name, operation_id) DO UPDATE
  SET limit_key = excluded.limit_key, amount = excluded.amount, claimed_at_ms = excluded.claimed_at_ms, counts = true`;

type Results = pg.QueryResult<Record<string, unknown>>[];

/** The claim with its limits, in one transaction of two round trips (see the file comment). */
export async function claimLimited(db: pg.Pool, req: ClaimRequest, limits: readonly LimitClaim[]): Promise<ClaimResult> {
  const params = claimParams(req);
  for (;;) {
    const client = await db.connect();
    let open = false;
    try {
      const opened = (await client.query(
        [
          "BEGIN",
          ...lockSql(req.tenant, limits),
          `SELECT ${operationArray} AS op FROM operations WHERE tenant = ${literal(req.tenant)} AND operation_id = ${literal(req.operation_id)} FOR UPDATE`,
          ...(req.guard === undefined ? [] : [inlineParams(guardSql, params)]),
          figuresSql(req.tenant, req.operation_id, keyRows(limits, req.now_ms)),
        ].join(";\n"),
      )) as unknown as Results;
      open = true;
      const figures = figuresFrom(opened.at(-1)!.rows as FigureRow[]);
      const row = opened[1 + new Set(limits.map((k) => lockId(req.tenant, k))).size]!.rows[0] as { op: unknown[] } | undefined;
      const current = row === undefined ? null : toOperation(operationFromArray(row.op));
      const refused = req.guard === undefined ? null : checkGuard(req, guardStateOf(opened.at(-2)!.rows[0] as GuardRow | undefined));
      const plan = refused === null ? planClaim(current, req) : null;
      const answer = refused ?? (plan!.write === null ? plan!.result : checkLimits(req, figures));
      if (answer !== null) {
        await client.query("ROLLBACK");
        open = false;
        return answer;
      }
      const claimed =
        current === null
          ? `WITH claimed AS (${inlineParams(insertClaimSql, params)} ON CONFLICT (tenant, operation_id) DO NOTHING RETURNING ${operationArray} AS op, created_at),
             entries AS (${entriesSql(req.tenant, req.operation_id, limits, req.now_ms, "claimed")})
             SELECT op FROM claimed`
          : // The row is locked FOR UPDATE and the plan said claimable: the statement claims.
            `WITH claimed AS (${inlineParams(claimSql, params)}, created_at),
             entries AS (${entriesSql(req.tenant, req.operation_id, limits, req.now_ms, "claimed")})
             SELECT op FROM claimed`;
      const done = (await client.query(`${claimed};\nCOMMIT`)) as unknown as Results;
      open = false;
      const op = (done[0]!.rows[0] as { op: unknown[] } | undefined)?.op;
      // Nothing inserted: another claimer inserted the record since it was read; read it next round.
      if (op === undefined) continue;
      const r = operationFromArray(op);
      return { kind: "claimed", record: toOperation(r), previous: r.claimed_from === null ? null : (r.claimed_from as OperationRecord["status"]) };
    } catch (err) {
      if (open) await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}

/** [inserted, operation, interrupt, approval, figures rows] as claim-first with limits answers them. */
type ClaimFirstValue = [boolean, unknown[] | null, { reason: string; at_ms: number } | null, ApprovalRow | null, FigureRow[] | null];

/**
 * An array parameter's text in PostgreSQL's array syntax (the statement runner sends scalars
 * only): a string double-quoted with `\` and `"` backslash-escaped, a finite number as written,
 * null as NULL. The server parses it straight into the array, with no JSON to read first.
 */
export function arrayLiteral(values: readonly (string | number | null)[]): string {
  const items = values.map((v) => {
    if (v === null) return "NULL";
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new Error(`postgres limits: ${v} is not a finite number`);
      return String(v);
    }
    return `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  });
  return `{${items.join(",")}}`;
}

// $1..$11 as insertClaimSql, $12 read the interrupt; the limits as arrays (arrayLiteral) in one order: $13 names,
// $14 keys, $15 window starts, $16 amounts, $17 max_sum, $18 max_count; $19 the key locks, sorted.
const claimFirstLimitedSql = `
WITH figures AS (
  SELECT f.f_name AS name, f.f_count AS count, f.f_sum AS sum, k.amount, k.max_sum, k.max_count
    FROM toolgate_limit_figures($1::text, $2::text, $13::text[], $14::text[], $15::bigint[], $19::bigint[]) f
    JOIN unnest($13::text[], $16::double precision[], $17::double precision[], $18::bigint[]) AS k (name, amount, max_sum, max_count) ON k.name = f.f_name),
fits AS (SELECT coalesce(bool_and((max_count IS NULL OR count + 1 <= max_count) AND (max_sum IS NULL OR sum + amount <= max_sum)), true) AS ok FROM figures),
claimed AS (${insertClaimSql} AND (SELECT ok FROM fits)
  ON CONFLICT (tenant, operation_id) DO NOTHING
  RETURNING created_at),
entries AS (
  INSERT INTO limit_entries (tenant, limit_name, limit_key, operation_id, amount, claimed_at_ms, counts)
  SELECT $1::text, k.name, k.key, $2::text, k.amount, toolgate_ms(c.created_at), true
    FROM claimed c CROSS JOIN unnest($13::text[], $14::text[], $16::double precision[]) AS k (name, key, amount)
  ON CONFLICT (tenant, limit_name, operation_id) DO UPDATE
    SET limit_key = excluded.limit_key, amount = excluded.amount, claimed_at_ms = excluded.claimed_at_ms, counts = true)
SELECT json_build_array(
  EXISTS (SELECT 1 FROM claimed),
  (SELECT ${operationArray} FROM operations WHERE tenant = $1::text AND operation_id = $2::text AND NOT EXISTS (SELECT 1 FROM claimed)),
  (SELECT row_to_json(i) FROM (SELECT reason, toolgate_ms(at) AS at_ms FROM interrupts
     WHERE $12::boolean AND tenant = $1::text AND run_id = $9::text AND at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM claimed)) i),
  (SELECT row_to_json(ap) FROM (SELECT ${approvalColumns} FROM approvals a ${latestEventJoin} WHERE a.id = $10::text) ap),
  (SELECT json_agg(json_build_object('name', name, 'count', count, 'sum', sum)) FROM figures))`;

/**
 * Claim-first of a call with limits, in one round trip (one prepared statement): it takes the key
 * locks and reads the figures (toolgate_limit_figures, migration 017), and makes the fresh guarded
 * claim with its entries only when the call fits every cap; it answers the call state as
 * claim-first does, and the figures (before this call) the policy then decides on: they hold
 * until the claim commits, so the claim needs no second check.
 */
export async function claimFirstLimited(db: pg.Pool, req: ClaimFirstRequest, limits: readonly LimitClaim[]): Promise<ClaimFirstResult & { figures: Record<string, LimitFigures> }> {
  const locks = [...new Set(limits.map((k) => lockId(req.tenant, k)))].sort();
  const params = [
    ...claimParams(req),
    req.interrupt,
    ...[
      limits.map((l) => l.name),
      limits.map((l) => l.key),
      limits.map((l) => req.now_ms - l.window_ms),
      limits.map((l) => l.amount),
      limits.map((l) => l.max_sum),
      limits.map((l) => l.max_count),
      locks,
    ].map(arrayLiteral),
  ];
  const value = await runPreparedValue<ClaimFirstValue>(db, "op_claim_first_limited", claimFirstLimitedSql, params);
  if (value === undefined) throw new Error("claim-first with limits answered no row");
  const [inserted, opRow, interrupt, approvalRow, figureRows] = value;
  return { ...claimFirstResult(req, [inserted, opRow, interrupt, approvalRow]), figures: figuresFrom(figureRows ?? []) };
}

/** Entries whose operation incarnation is gone. */
export async function purgeLimitEntries(db: pg.Pool): Promise<number> {
  const res = await db.query(`DELETE FROM limit_entries e WHERE NOT EXISTS (SELECT 1 FROM operations o
    WHERE o.tenant = e.tenant AND o.operation_id = e.operation_id AND toolgate_ms(o.created_at) = e.claimed_at_ms)`);
  return res.rowCount ?? 0;
}
