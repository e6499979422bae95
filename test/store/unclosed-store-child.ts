/**
 * Child of sqlite-checkpoint.test.ts: opens a file store (which starts the background
 * checkpointer), writes an interrupt and a decision-log entry, and never closes it.
 * argv: <path of the database file>.
 */
import { openSqliteStore } from "../../src/store/index.js";

const path = process.argv[2];
if (path === undefined) throw new Error("usage: unclosed-store-child.ts <db path>");
const store = openSqliteStore(path);
await store.setInterrupt({ tenant: "t", run_id: "r", reason: "stop", at_ms: 1 });
await store.appendDecision({
  decision_id: "unclosed-1", at_ms: 1, tenant: "t", run_id: "r", user: "u", tool: "get_account", operation_id: null,
  fingerprint: null, decision: "allow", reason: "read_allowed", policy_version: null, outcome: "success", outcome_reason: null,
});
process.stdout.write("WROTE\n");
