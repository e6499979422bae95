/**
 * The audit chain as a store holds it and an export carries it: linked records, pruned
 * records (removed by retention, their links kept), and each tenant's head. Plain JSON, so
 * an export line is one of these. Enters/leaves: nothing (types only).
 */
import type { JsonObject } from "../../manifest.js";
import type { ChainKind } from "./content.js";

export interface ChainRecord {
  readonly type: "record";
  readonly kind: ChainKind;
  readonly tenant: string;
  /** decision_id, or `<approval id>#<event seq>` for an approval decision. */
  readonly id: string;
  /** Position in the tenant's chain (1 = first); null for a record written before the chain existed. */
  readonly seq: number | null;
  readonly prev_link: string | null;
  readonly link: string | null;
  /** Exactly what the content hash covers (see content.ts). */
  readonly content: JsonObject;
  /**
   * The row's storage order in its table (decision_log.seq, approval_events.seq): an unchained
   * record stored after the first chained one of its kind was not written before the chain.
   */
  readonly row?: number;
}

/** A record deleted by retention: its content is gone, its hash and links are kept. */
export interface ChainPruned {
  readonly type: "pruned";
  readonly kind: ChainKind;
  readonly tenant: string;
  readonly id: string;
  readonly seq: number;
  readonly content_hash: string;
  readonly prev_link: string;
  readonly link: string;
}

/** The newest link of a tenant's chain, as the store last wrote it. */
export interface ChainHead {
  readonly type: "head";
  readonly tenant: string;
  readonly seq: number;
  readonly link: string;
}

export type ChainItem = ChainRecord | ChainPruned | ChainHead;

export interface ChainSnapshot {
  readonly records: readonly ChainRecord[];
  readonly pruned: readonly ChainPruned[];
  readonly heads: readonly ChainHead[];
}

/** A store that can hand over its audit chain (both built-in stores). */
export interface ChainSource {
  readChain(tenant?: string): Promise<ChainSnapshot>;
}

export const isChainSource = (store: object): store is ChainSource =>
  typeof (store as Partial<ChainSource>).readChain === "function";
