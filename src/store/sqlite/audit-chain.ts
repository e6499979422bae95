/**
 * The audit chain on SQLite: links records inside the writing transaction (SQLite has one
 * writer at a time, under BEGIN IMMEDIATE, so reading the tenant's head and writing the new one
 * in that transaction orders the chain like the commits, across processes too); reads the
 * chain back for verification. Enters: a database, records to link. Leaves: links, snapshots.
 */
import type { Database as Db, Statement } from "better-sqlite3";
import { approvalDecisionContent, decisionContent } from "../chain/content.js";
import type { ChainKind } from "../chain/content.js";
import { chainLink, contentHash, genesisLink } from "../chain/link.js";
import type { ChainHead, ChainPruned, ChainRecord, ChainSnapshot } from "../chain/records.js";
import type { ApprovalEvent } from "../store.js";
import { toDecisionRecord } from "../rows.js";
import type { DecisionColumns } from "../rows.js";
import { parseJson, toApprovalEvent } from "./rows.js";
import type { ApprovalEventRow } from "./rows.js";

/** Tables of the chain (created on open, with the columns in schema.ts' sqliteAddedColumns). */
export const sqliteChainSchema = `
CREATE TABLE IF NOT EXISTS audit_chain_heads (
  tenant        TEXT    PRIMARY KEY,
  seq           INTEGER NOT NULL,
  link          TEXT    NOT NULL
);
-- Records deleted by retention: their content is gone, their place in the chain is kept.
CREATE TABLE IF NOT EXISTS audit_chain_pruned (
  tenant        TEXT    NOT NULL,
  seq           INTEGER NOT NULL,
  kind          TEXT    NOT NULL,
  record_id     TEXT    NOT NULL,
  content_hash  TEXT    NOT NULL,
  prev_link     TEXT    NOT NULL,
  link          TEXT    NOT NULL,
  PRIMARY KEY (tenant, seq)
);
`;

/**
 * Created after the chain columns exist (ensureSqliteColumns): a linked decision-log row
 * advances its tenant's head inside its own INSERT statement.
 */
export const sqliteChainTriggers = `
CREATE TRIGGER IF NOT EXISTS decision_log_chain_head AFTER INSERT ON decision_log
WHEN NEW.chain_seq IS NOT NULL
BEGIN
  INSERT INTO audit_chain_heads (tenant, seq, link) VALUES (NEW.tenant, NEW.chain_seq, NEW.link)
    ON CONFLICT (tenant) DO UPDATE SET seq = excluded.seq, link = excluded.link;
END;
`;

/** `toolgate_chain_link(prev, hash)` for this connection's statements (chainLink, in SQL). */
export function registerChainLink(db: Db): void {
  db.function("toolgate_chain_link", { deterministic: true }, (prev: unknown, hash: unknown) => chainLink(String(prev), String(hash)));
}

/** The chain columns of a linked row: content hash, position, previous link, link. */
export type ChainColumns = readonly [hash: string, seq: number, prev: string, link: string];

interface Head {
  seq: number;
  link: string;
}

/**
 * Links the records of one transaction. `link` reads a tenant's head once per transaction
 * and `finish` writes the heads that moved; call both inside the same transaction.
 */
export class ChainLinker {
  readonly #getHead: Statement<[string], [number, string]>;
  readonly #putHead: Statement<[string, number, string]>;
  readonly #setEventLinks: Statement<[string, number, string, string, number]>;
  #heads = new Map<string, Head>();

  constructor(db: Db) {
    this.#getHead = db.prepare<[string], [number, string]>("SELECT seq, link FROM audit_chain_heads WHERE tenant = ?").raw(true);
    this.#putHead = db.prepare<[string, number, string]>(
      "INSERT INTO audit_chain_heads (tenant, seq, link) VALUES (?, ?, ?) ON CONFLICT (tenant) DO UPDATE SET seq = excluded.seq, link = excluded.link",
    );
    this.#setEventLinks = db.prepare("UPDATE approval_events SET content_hash = ?, chain_seq = ?, prev_link = ?, link = ? WHERE seq = ?");
  }

  link(tenant: string, hash: string): ChainColumns {
    let head = this.#heads.get(tenant);
    if (head === undefined) {
      const row = this.#getHead.get(tenant);
      head = row === undefined ? { seq: 0, link: genesisLink } : { seq: row[0], link: row[1] };
      this.#heads.set(tenant, head);
    }
    const prev = head.link;
    head.seq += 1;
    head.link = chainLink(prev, hash);
    return [hash, head.seq, prev, head.link];
  }

  /** Writes the moved heads; the linker is then ready for the next transaction. */
  finish(): void {
    for (const [tenant, head] of this.#heads) this.#putHead.run(tenant, head.seq, head.link);
    this.#heads = new Map();
  }

  /** Forgets heads read or moved in a transaction that rolled back. */
  reset(): void {
    this.#heads = new Map();
  }

  /** Links the approval decision just inserted as row `eventSeq` (in the caller's transaction). */
  linkApprovalDecision(eventSeq: number, tenant: string, event: ApprovalEvent): void {
    try {
      const [hash, seq, prev, link] = this.link(tenant, contentHash(approvalDecisionContent(event)));
      this.#setEventLinks.run(hash, seq, prev, link, eventSeq);
      this.finish();
    } catch (err) {
      this.reset();
      throw err;
    }
  }
}

type DecisionChainRow = DecisionColumns<string> & { decision_id: string | null; seq: number; chain_seq: number | null; prev_link: string | null; link: string | null };
type EventChainRow = ApprovalEventRow & { seq: number; tenant: string; chain_seq: number | null; prev_link: string | null; link: string | null };

export function readSqliteChain(db: Db, tenant: string | null): ChainSnapshot {
  const decisions = db
    .prepare<[string | null, string | null], DecisionChainRow>("SELECT * FROM decision_log WHERE ? IS NULL OR tenant = ? ORDER BY tenant, chain_seq, seq")
    .all(tenant, tenant);
  const events = db
    .prepare<[string | null, string | null], EventChainRow>(
      `SELECT e.*, a.tenant FROM approval_events e JOIN approvals a ON a.id = e.approval_id
        WHERE ? IS NULL OR a.tenant = ? ORDER BY a.tenant, e.chain_seq, e.seq`,
    )
    .all(tenant, tenant);
  const pruned = db
    .prepare<[string | null, string | null], { tenant: string; seq: number; kind: string; record_id: string; content_hash: string; prev_link: string; link: string }>(
      "SELECT * FROM audit_chain_pruned WHERE ? IS NULL OR tenant = ?",
    )
    .all(tenant, tenant);
  const heads = db
    .prepare<[string | null, string | null], { tenant: string; seq: number; link: string }>("SELECT tenant, seq, link FROM audit_chain_heads WHERE ? IS NULL OR tenant = ?")
    .all(tenant, tenant);
  const records: ChainRecord[] = [
    ...decisions.map((row): ChainRecord => {
      const id = row.decision_id ?? `seq-${row.seq}`;
      return {
        type: "record",
        kind: "decision",
        tenant: row.tenant,
        id,
        seq: row.chain_seq,
        prev_link: row.prev_link,
        link: row.link,
        row: row.seq,
      content: decisionContent(toDecisionRecord(row, id, parseJson), id),
      };
    }),
    ...events.map((row): ChainRecord => ({
      type: "record",
      kind: "approval_decision",
      tenant: row.tenant,
      id: `${row.approval_id}#${row.seq}`,
      seq: row.chain_seq,
      prev_link: row.prev_link,
      link: row.link,
      row: row.seq,
      content: approvalDecisionContent(toApprovalEvent(row)),
    })),
  ];
  return {
    records,
    pruned: pruned.map((r): ChainPruned => ({ type: "pruned", kind: r.kind as ChainKind, tenant: r.tenant, id: r.record_id, seq: r.seq, content_hash: r.content_hash, prev_link: r.prev_link, link: r.link })),
    heads: heads.map((h): ChainHead => ({ type: "head", tenant: h.tenant, seq: h.seq, link: h.link })),
  };
}

/** Keeps the links of chained entries the purge is about to delete (run in the purge's transaction). */
export const keepPrunedDecisionsSql = `
INSERT OR IGNORE INTO audit_chain_pruned (tenant, seq, kind, record_id, content_hash, prev_link, link)
SELECT tenant, chain_seq, 'decision', decision_id, content_hash, prev_link, link FROM decision_log
 WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= ? AND chain_seq IS NOT NULL`;
