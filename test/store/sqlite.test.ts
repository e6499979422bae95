import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/index.js";
import type { DecisionLogEntry } from "../../src/store/store.js";
import { runStoreContract } from "./contract.js";
import { runDecisionLogContract } from "./decision-log-contract.js";

runStoreContract("sqlite :memory:", async () => ({ store: openSqliteStore(":memory:") }));

runStoreContract("sqlite file (two connections)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-store-"));
  const path = join(dir, "state.db");
  return {
    store: openSqliteStore(path),
    openPeer: async () => openSqliteStore(path),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

runDecisionLogContract("sqlite file (two connections)", async (decisionLog) => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-store-"));
  const path = join(dir, "state.db");
  return {
    store: openSqliteStore(path, { decisionLog }),
    openPeer: async () => openSqliteStore(path),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe("sqlite store specifics", () => {
  it("a file store uses WAL and keeps state across reopen", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-store-"));
    try {
      const path = join(dir, "state.db");
      const a = openSqliteStore(path);
      await a.setInterrupt({ tenant: "t", run_id: "r", reason: "stop", at_ms: 1 });
      await a.close();
      const b = openSqliteStore(path);
      expect(await b.getInterrupt("t", "r")).toMatchObject({ reason: "stop" });
      await b.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const T0 = 1_700_000_000_000;
  const claimOf = (operation_id: string) =>
    ({ tenant: "t1", operation_id, tool: "reserve_funds", fingerprint: "f".repeat(64), owner: "w", now_ms: T0, lease_ms: 1_000, retention_ms: 60_000 }) as const;


});
