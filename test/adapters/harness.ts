/**
 * The framework adapters' case harness: the shipped escrow tools and policy over a SQLite file
 * or a PostgreSQL schema, with a manual clock. `restart()` stands for a new process: the old
 * store is closed and a new store connection, runtime and adapter are made over the same
 * file / schema (the ledger, the outside world, stays).
 */
import { manifest, validators } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../../src/demo/escrow.js";
import type { TrustedContext } from "../../src/generated-runtime.js";
import { createRuntime } from "../../src/runtime/index.js";
import type { Runtime } from "../../src/runtime/index.js";
import type { Store } from "../../src/store/store.js";
import { manualClock } from "../../src/testing/index.js";
import type { ManualClock } from "../../src/testing/index.js";
import { loadPolicy, storeSite } from "../mcp/fixture.js";
import type { StoreKind, StoreSite } from "../mcp/fixture.js";
import { flakyLedger } from "./scripted.js";

export { alice, bob, reserveArgs } from "../mcp/fixture.js";
export type { StoreKind } from "../mcp/fixture.js";

/** Alice's agent in another run: the same principal, a different run. */
export const aliceOtherRun: TrustedContext = { tenant: "t_acme", user: "alice", roles: ["agent"], run_id: "run_other" };
/** An approver who may not decide: the requester herself. */
export const aliceAsApprover = { tenant: "t_acme", user: "alice", roles: ["approver"] } as const;

/** reserve_funds' approval ttl in tools.yaml (15 min). */
export const RESERVE_TTL_MS = 15 * 60_000;

export interface AdapterGate {
  readonly runtime: Runtime;
  readonly store: Store;
  readonly ledger: EscrowLedger;
  readonly clock: ManualClock;
  readonly kind: StoreKind;
  /** A new store connection, runtime (and so adapter) over the same file / schema, as a new process would make. */
  restart(): Promise<AdapterGate>;
  close(): Promise<void>;
}

async function gateOver(site: StoreSite, ledger: EscrowLedger, clock: ManualClock, track: (g: AdapterGate) => void): Promise<AdapterGate> {
  const store = await site.open();
  const base = escrowHandlers(ledger);
  const runtime = createRuntime({
    manifest,
    validators,
    handlers: { ...base, ...flakyLedger(base) },
    reconcilers: escrowReconcilers(ledger),
    policy: await loadPolicy(),
    store,
    clock,
    onError: () => undefined,
  });
  const gate: AdapterGate = {
    runtime,
    store,
    ledger,
    clock,
    kind: site.kind,
    async restart() {
      await store.close();
      return gateOver(site, ledger, clock, track);
    },
    close: () => store.close(),
  };
  track(gate);
  return gate;
}

export interface AdapterSite {
  /** Where the store lives, for a child process to open it: the SQLite file, or the PostgreSQL url and schema. */
  readonly where: { readonly db: string; readonly pg?: { readonly url: string; readonly schema: string } };
  gate(): Promise<AdapterGate>;
  drop(): Promise<void>;
}

/** One store site per suite; `gate()` opens a fresh gate (own ledger and clock) over it. */
export async function adapterSite(kind: StoreKind): Promise<AdapterSite> {
  const site = await storeSite(kind);
  const open: AdapterGate[] = [];
  const url = site.env["TOOLGATE_PG_URL"];
  const schema = site.env["TOOLGATE_PG_SCHEMA"];
  return {
    where: { db: site.db, ...(url !== undefined && schema !== undefined ? { pg: { url, schema } } : {}) },
    async gate() {
      return gateOver(site, new EscrowLedger(), manualClock(Date.now()), (g) => open.push(g));
    },
    async drop() {
      for (const g of open) await g.close().catch(() => undefined);
      await site.drop();
    },
  };
}

let seq = 0;
/** A fresh operation id per test, so tests sharing a store never meet each other's records. */
export const newOp = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${(seq += 1)}`;
