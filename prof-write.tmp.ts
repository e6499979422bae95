import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manifest, validators } from "./generated/index.js";
import { EscrowLedger, escrowHandlers, escrowReconcilers } from "./src/demo/escrow.js";
import { loadOpaWasmEngine } from "./src/policy/index.js";
import { createRuntime } from "./src/runtime/index.js";
import { openSqliteStore } from "./src/store/index.js";
const dir = mkdtempSync(join(tmpdir(), "tgp-"));
const policy = await loadOpaWasmEngine({ wasm: new Uint8Array(readFileSync("generated/policy.wasm")), entrypoint: "toolgate/authz/decision", data: JSON.parse(readFileSync("policies/data.json", "utf8")) });
const ledger = new EscrowLedger([{ account_id: "acc_alice", balance: 1e12, currency: "EUR", status: "open" }, { account_id: "acc_bob", balance: 0, currency: "EUR", status: "open" }]);
const store = openSqliteStore(join(dir, "b.db"));
const rt = createRuntime({ manifest, validators, handlers: escrowHandlers(ledger), reconcilers: escrowReconcilers(ledger), policy, store });
const ctx = { tenant: "t", user: "u", roles: ["agent"], run_id: "r" };
const N = Number(process.env.N ?? 2000);
const args = { account_id: "acc_alice", amount: 1, currency: "EUR", recipient: "acc_bob" };
const ids: string[] = [];
let t = performance.now();
for (let i = 0; i < N; i++) {
  const a = await rt.call(ctx, { tool: "reserve_funds", args, operation_id: `op-${i}` }) as { approval_id: string };
  await rt.approvals.decide(a.approval_id, { decision: "approve" }, { tenant: "t", user: "bob", roles: ["approver"] });
  ids.push(a.approval_id);
}
console.log("prepare/s", N / (performance.now() - t) * 1000);
t = performance.now();
for (let i = 0; i < N; i++) { const e = await rt.call(ctx, { tool: "reserve_funds", args, operation_id: `op-${i}`, approval_id: ids[i] }); if (e.outcome !== "success") throw new Error(JSON.stringify(e)); }
console.log("write/s", N / (performance.now() - t) * 1000);
await store.close();
