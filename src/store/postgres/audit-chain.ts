/**
 * The audit chain on PostgreSQL: reads the linked decision-log rows and approval decisions
 * (the links themselves are written by migration 012's trigger), the pruned records and the
 * heads; and purges the decision log past retention keeping each purged record's links.
 * Enters: a pool, a tenant. Leaves: a chain snapshot.
 */
import type pg from "pg";
import type { JsonObject, JsonValue } from "../../manifest.js";
import type { ShadowDecision } from "../store.js";
import { approvalDecisionContent, decisionContent } from "../chain/content.js";
import type { ChainKind } from "../chain/content.js";
import type { ChainHead, ChainPruned, ChainRecord, ChainSnapshot } from "../chain/records.js";
import { toApprovalEventRecord, toDecisionRecord } from "../rows.js";
import type { DecisionColumns } from "../rows.js";
import { pgJson } from "./rows.js";
import type { ApprovalEventRow } from "./rows.js";

interface Linked {
  chain_seq: string | null;
  prev_link: string | null;
  link: string | null;
}
type DecisionChainRow = DecisionColumns<JsonObject | JsonValue | string[] | ShadowDecision> & Linked & { decision_id: string; seq: string };
type EventChainRow = ApprovalEventRow & Linked & { seq: string; tenant: string };

const decisionSql = `SELECT seq, decision_id, toolgate_ms(at) AS at_ms, tenant, run_id, user_id, tool, operation_id, fingerprint,
  decision, reason, policy_version, outcome, outcome_reason, path, input, result, erased, eval_ns, shadow,
  toolgate_ms(expires_at) AS expires_at_ms, error, chain_seq, prev_link, link
  FROM decision_log WHERE $1::text IS NULL OR tenant = $1 ORDER BY tenant, chain_seq NULLS FIRST, seq`;

const eventSql = `SELECT e.seq, a.tenant, e.approval_id, e.decision, e.approver, e.reason, e.edited_args,
  toolgate_ms(e.decided_at) AS decided_at_ms, e.policy_version, e.approver_roles, e.policy_code_version, e.policy_data_version,
  e.chain_seq, e.prev_link, e.link
  FROM approval_events e JOIN approvals a ON a.id = e.approval_id
  WHERE $1::text IS NULL OR a.tenant = $1 ORDER BY a.tenant, e.chain_seq NULLS FIRST, e.seq`;

const seqOf = (v: string | null): number | null => (v === null ? null : Number(v));

export async function readChain(db: pg.Pool, tenant: string | null): Promise<ChainSnapshot> {
  const [decisions, events, pruned, heads] = await Promise.all([
    db.query<DecisionChainRow>(decisionSql, [tenant]),
    db.query<EventChainRow>(eventSql, [tenant]),
    db.query<{ tenant: string; seq: string; kind: string; record_id: string; content_hash: string; prev_link: string; link: string }>(
      "SELECT tenant, seq, kind, record_id, content_hash, prev_link, link FROM audit_chain_pruned WHERE $1::text IS NULL OR tenant = $1",
      [tenant],
    ),
    db.query<{ tenant: string; seq: string; link: string }>("SELECT tenant, seq, link FROM audit_chain_heads WHERE $1::text IS NULL OR tenant = $1", [tenant]),
  ]);
  const records: ChainRecord[] = [
    ...decisions.rows.map((row): ChainRecord => ({
      type: "record",
      kind: "decision",
      tenant: row.tenant,
      id: row.decision_id,
      seq: seqOf(row.chain_seq),
      prev_link: row.prev_link,
      link: row.link,
      row: Number(row.seq),
      content: decisionContent(toDecisionRecord(row, row.decision_id, pgJson), row.decision_id),
    })),
    ...events.rows.map((row): ChainRecord => ({
      type: "record",
      kind: "approval_decision",
      tenant: row.tenant,
      id: `${row.approval_id}#${row.seq}`,
      seq: seqOf(row.chain_seq),
      prev_link: row.prev_link,
      link: row.link,
      row: Number(row.seq),
      content: approvalDecisionContent(toApprovalEventRecord(row, pgJson)),
    })),
  ];
  return {
    records,
    pruned: pruned.rows.map((r): ChainPruned => ({
      type: "pruned",
      kind: r.kind as ChainKind,
      tenant: r.tenant,
      id: r.record_id,
      seq: Number(r.seq),
      content_hash: r.content_hash,
      prev_link: r.prev_link,
      link: r.link,
    })),
    heads: heads.rows.map((h): ChainHead => ({ type: "head", tenant: h.tenant, seq: Number(h.seq), link: h.link })),
  };
}

/** Deletes decision-log entries past retention; a chained one leaves its links in audit_chain_pruned. */
export const purgeDecisionsSql = `
WITH gone AS (
  DELETE FROM decision_log WHERE expires_at IS NOT NULL AND expires_at <= toolgate_ts($1::bigint)
  RETURNING tenant, chain_seq, decision_id, content_hash, prev_link, link
),
kept AS (
  INSERT INTO audit_chain_pruned (tenant, seq, kind, record_id, content_hash, prev_link, link)
  SELECT tenant, chain_seq, 'decision', decision_id, content_hash, prev_link, link FROM gone WHERE chain_seq IS NOT NULL
  ON CONFLICT (tenant, seq) DO NOTHING
)
SELECT count(*)::int AS n FROM gone`;
