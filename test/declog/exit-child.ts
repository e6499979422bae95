/**
 * Child of exit-flush.test.ts: queues decision-log entries in a store whose batch
 * delay is a minute, then ends without closing the store: `exit` calls
 * process.exit(0), `drain` lets the event loop run dry. The parent checks that the
 * entries were written anyway.
 */
import { openPgStore } from "../../src/store/postgres/index.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { logEntry } from "../store/decision-log-contract.js";

const [kind, mode, where, schema] = process.argv.slice(2) as [string, string, string, string | undefined];
const decisionLog = { maxDelayMs: 60_000, maxBatchRows: 10_000 };
const store = kind === "sqlite" ? openSqliteStore(where, { decisionLog }) : await openPgStore({ url: where, schema: schema ?? "public", max: 1, decisionLog });
for (let i = 0; i < 3; i++) await store.appendDecision(logEntry({ decision_id: `exit-${mode}-${i}` }));
process.stdout.write("queued\n");
if (mode === "exit") process.exit(0);
