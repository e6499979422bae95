/** Gates for the MCP and adapter tests: the shipped escrow tools and policy over SQLite or PostgreSQL. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manifest, validators } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "../../src/demo/escrow.js";
import type { TrustedContext } from "../../src/generated-runtime.js";
import type { ToolHandlers } from "../../generated/index.js";
import { loadOpaWasmEngineFromFiles } from "../../src/policy/index.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { createRuntime } from "../../src/runtime/index.js";
import type { Runtime } from "../../src/runtime/index.js";
import { serveMcpHttp } from "../../src/mcp/index.js";
import type { McpHttpOptions } from "../../src/mcp/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import type { Store } from "../../src/store/store.js";
import { createTestSchema } from "../helpers/pg-env.js";
import type { StoreName } from "../helpers/stores.js";
import type { Server as HttpServer } from "node:http";
import { secret } from "./wire.js";

export type StoreKind = StoreName;

export const alice: TrustedContext = { tenant: "t_acme", user: "alice", roles: ["agent"], run_id: "run_mcp" };
export const viewer: TrustedContext = { tenant: "t_acme", user: "vera", roles: ["viewer"], run_id: "run_view" };

/** The same files `toolgate mcp` loads by default, so a child process and the test agree on the policy version. */
export const loadPolicy = (): Promise<PolicyEngine> =>
  loadOpaWasmEngineFromFiles({ wasm: "generated/policy.wasm", data: "policies/data.json", entrypoint: manifest.policy.entrypoint });

/** Where a store lives: a SQLite file or a fresh PostgreSQL schema, openable more than once (child processes share it). */
export interface StoreSite {
  readonly kind: StoreKind;
  /** Environment for a `toolgate mcp` child using this store. */
  readonly env: Record<string, string>;
  readonly db: string;
  open(): Promise<Store>;
  drop(): Promise<void>;
}

export async function storeSite(kind: StoreKind): Promise<StoreSite> {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-mcp-test-"));
  const db = join(dir, "state.db");
  if (kind === "sqlite") {
    return { kind, env: {}, db, open: async () => openSqliteStore(db), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = await createTestSchema();
  return {
    kind,
    env: { TOOLGATE_PG_URL: schema.url, TOOLGATE_PG_SCHEMA: schema.schema },
    db,
    open: () => openPgStore({ url: schema.url, schema: schema.schema, max: 2 }),
    drop: async () => {
      await schema.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestGate {
  readonly runtime: Runtime;
  readonly ledger: EscrowLedger;
  readonly store: Store;
}

export async function makeTestGate(store: Store, override?: (base: ToolHandlers) => Partial<ToolHandlers>): Promise<TestGate> {
  const ledger = new EscrowLedger();
  const base = escrowHandlers(ledger);
  const runtime = createRuntime({
    manifest,
    validators,
    handlers: { ...base, ...(override?.(base) ?? {}) },
    reconcilers: escrowReconcilers(ledger),
    policy: await loadPolicy(),
    store,
    onError: () => undefined,
  });
  return { runtime, ledger, store };
}

/** Approves as an authenticated approver other than the requester. */
export const bob = { tenant: "t_acme", user: "bob", roles: ["approver"] } as const;

export async function approveAsBob(runtime: Runtime, approvalId: string): Promise<void> {
  const d = await runtime.approvals.decide(approvalId, { decision: "approve" }, bob);
  if (!d.ok) throw new Error(`approval failed: ${d.message}`);
}

export const reserveArgs = { account_id: "acc_alice", amount: 1_000, currency: "EUR", recipient: "acc_bob" };

/** A test gate on a fresh store, served over MCP Streamable HTTP on a free local port. */
export interface ServedGate {
  readonly site: StoreSite;
  readonly store: Store;
  readonly gate: TestGate;
  readonly http: HttpServer;
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: URL;
  /** Stops the server, closes the store and drops its database. */
  close(): Promise<void>;
}

/** `makeTestGate` on a fresh store of `kind`, served with the test `secret` and `options` on a free port. */
export async function serveTestGate(kind: StoreKind, options: Partial<McpHttpOptions> = {}): Promise<ServedGate> {
  const site = await storeSite(kind);
  const store = await site.open();
  const gate = await makeTestGate(store);
  const http = await serveMcpHttp(gate.runtime, { secret, ...options, port: 0 });
  const address = http.address();
  const url = new URL(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/mcp`);
  return {
    site,
    store,
    gate,
    http,
    url,
    close: async () => {
      await new Promise((r) => http.close(r));
      await store.close();
      await site.drop();
    },
  };
}
