/**
 * Checks a tenant's audit chain: positions 1..n without gaps or repeats, each record linked to
 * the one before it, each link matching the record's recomputed content hash, the last link
 * matching the stored head (and any anchors: heads exported earlier). Reports the first broken
 * link per tenant. Enters: a chain snapshot (from a store or an export). Leaves: a report.
 */
import { chainLink, contentHash, genesisLink } from "./link.js";
import type { ChainHead, ChainPruned, ChainRecord, ChainSnapshot } from "./records.js";

export type BreakProblem =
  | "missing" // no record at this position (deleted)
  | "duplicate" // two records claim this position
  | "out_of_order" // the record links to another predecessor (re-ordered, or one before it deleted)
  | "edited" // the record's content does not match its link
  | "unlinked" // a record without a link stored after the chain began (inserted outside it)
  | "head_mismatch" // the chain ends before, or elsewhere than, the stored head
  | "anchor_mismatch"; // the chain disagrees with a head exported earlier

export interface ChainBreak {
  readonly tenant: string;
  /** The position of the break (0 for an unlinked record, which has none). */
  readonly seq: number;
  /** The record at the break (or the first one after a missing position); null when none. */
  readonly id: string | null;
  readonly kind: string | null;
  readonly problem: BreakProblem;
  readonly message: string;
}

export interface TenantVerdict {
  readonly tenant: string;
  /** Chained records present (pruned ones not counted). */
  readonly records: number;
  readonly pruned: number;
  /** Records written before the chain existed: not checked, not a break. */
  readonly unchained: number;
  readonly head: { readonly seq: number; readonly link: string } | null;
  readonly broken: ChainBreak | null;
}

export interface ChainVerdict {
  readonly ok: boolean;
  readonly tenants: readonly TenantVerdict[];
}

type Entry = { readonly at: ChainRecord; readonly pruned: false } | { readonly at: ChainPruned; readonly pruned: true };

const groupBy = <T extends { readonly tenant: string }>(items: readonly T[]): Map<string, T[]> => {
  const out = new Map<string, T[]>();
  for (const it of items) {
    const list = out.get(it.tenant);
    if (list === undefined) out.set(it.tenant, [it]);
    else list.push(it);
  }
  return out;
};

/** Verifies every tenant in the snapshot; `anchors` are heads recorded earlier (an export's). */
export function verifyChain(snapshot: ChainSnapshot, anchors: readonly ChainHead[] = []): ChainVerdict {
  const records = groupBy(snapshot.records);
  const pruned = groupBy(snapshot.pruned);
  const heads = new Map(snapshot.heads.map((h) => [h.tenant, h]));
  const anchorsBy = groupBy(anchors);
  const tenants = [...new Set([...records.keys(), ...pruned.keys(), ...heads.keys(), ...anchorsBy.keys()])].sort();
  const verdicts = tenants.map((t) =>
    verifyTenant(t, records.get(t) ?? [], pruned.get(t) ?? [], heads.get(t) ?? null, anchorsBy.get(t) ?? []),
  );
  return { ok: verdicts.every((v) => v.broken === null), tenants: verdicts };
}

function verifyTenant(
  tenant: string,
  records: readonly ChainRecord[],
  pruned: readonly ChainPruned[],
  head: ChainHead | null,
  anchors: readonly ChainHead[],
): TenantVerdict {
  const unchained = records.filter((r) => r.seq === null).length;
  const entries: Entry[] = [
    ...records.filter((r) => r.seq !== null).map((at): Entry => ({ at, pruned: false })),
    ...pruned.map((at): Entry => ({ at, pruned: true })),
  ].sort((a, b) => (a.at.seq ?? 0) - (b.at.seq ?? 0));
  const verdict = (broken: ChainBreak | null): TenantVerdict => ({
    tenant,
    records: entries.length - pruned.length,
    pruned: pruned.length,
    unchained,
    head: head === null ? null : { seq: head.seq, link: head.link },
    broken,
  });
  const fail = (seq: number, at: Entry | null, problem: BreakProblem, message: string): TenantVerdict =>
    verdict({ tenant, seq, id: at?.at.id ?? null, kind: at?.at.kind ?? null, problem, message });

  const late = unlinkedAfterStart(records);
  if (late !== null) {
    return verdict({ tenant, seq: 0, id: late.id, kind: late.kind, problem: "unlinked", message: `${late.kind} ${late.id} has no link but was stored after the chain began: it was inserted outside the chain` });
  }

  const links = new Map<number, string>();
  let prev = genesisLink;
  let expected = 1;
  for (const [i, e] of entries.entries()) {
    const seq = e.at.seq ?? 0;
    const what = `${e.at.kind} ${e.at.id}`;
    if (seq < expected) return fail(seq, e, "duplicate", `position ${seq} is held by more than one record (${entries[i - 1]?.at.id} and ${e.at.id})`);
    if (seq > expected) {
      return fail(expected, e, "missing", `no record at position ${expected}${seq > expected + 1 ? `-${seq - 1}` : ""}: deleted before ${what} (position ${seq})`);
    }
    if (e.at.prev_link !== prev) {
      return fail(seq, e, "out_of_order", `${what} at position ${seq} does not follow the record before it (its previous link is not that record's link): re-ordered, or a record was removed or inserted here`);
    }
    const hash = e.pruned ? e.at.content_hash : contentHash(e.at.content);
    const link = chainLink(prev, hash);
    if (link !== e.at.link) {
      return fail(seq, e, "edited", `${what} at position ${seq} does not match its link: its content was changed after it was written`);
    }
    links.set(seq, link);
    prev = link;
    expected = seq + 1;
  }
  const last = expected - 1;
  if (head !== null && (head.seq !== last || head.link !== prev)) {
    const message =
      head.seq > last
        ? `the chain ends at position ${last} but its head is at ${head.seq}: the newest record(s) ${last + 1}-${head.seq} were deleted`
        : `the chain's last link (position ${last}) is not its stored head (position ${head.seq})`;
    return fail(last + 1, null, "head_mismatch", message);
  }
  if (head === null && last > 0) return fail(last, null, "head_mismatch", `the chain has ${last} records but no stored head`);
  for (const a of [...anchors].sort((x, y) => x.seq - y.seq)) {
    const link = links.get(a.seq);
    if (link !== a.link) {
      const entry = entries.find((e) => e.at.seq === a.seq) ?? null;
      return fail(a.seq, entry, "anchor_mismatch", link === undefined
        ? `the anchored head at position ${a.seq} is missing from the chain (it ends at ${last}): the chain was cut back`
        : `position ${a.seq} has another link than the anchored head: the chain was rewritten from this point or before`);
    }
  }
  return verdict(null);
}

/** The first unchained record stored after the first chained record of its kind, if any. */
function unlinkedAfterStart(records: readonly ChainRecord[]): ChainRecord | null {
  const start = new Map<string, number>();
  for (const r of records) {
    if (r.seq === null || r.row === undefined) continue;
    const at = start.get(r.kind);
    if (at === undefined || r.row < at) start.set(r.kind, r.row);
  }
  let first: ChainRecord | null = null;
  for (const r of records) {
    if (r.seq !== null || r.row === undefined) continue;
    const at = start.get(r.kind);
    if (at !== undefined && r.row > at && (first === null || r.row < (first.row ?? 0))) first = r;
  }
  return first;
}
