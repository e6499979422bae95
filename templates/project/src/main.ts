/**
 * Runs three model-proposed calls through the gate: a read (allowed), a refund (needs
 * an approval) and a deletion (denied), over a SQLite store, and prints each envelope.
 */
import { createRuntime, loadOpaWasmEngineFromFiles, openSqliteStore } from "toolgate";
import { manifest, policyBuiltins, validators } from "../generated/index.js";
import { handlers } from "./handlers.js";

const policy = await loadOpaWasmEngineFromFiles({
  wasm: "generated/policy.wasm",
  data: "policies/data.json",
  entrypoint: manifest.policy.entrypoint,
  builtins: policyBuiltins, // tools.yaml policy.builtins (none in this starter)
});
const store = openSqliteStore(process.env.TOOLGATE_DB ?? "toolgate.db");
const runtime = createRuntime({ manifest, validators, handlers, policy, store });

// Who is calling comes from your host (session, auth), never from the model.
const ctx = { tenant: "acme", user: "alice", roles: ["agent"], run_id: `run_${Date.now()}` };

const calls = [
  { tool: "get_order", args: { order_id: "ord_1001" } },
  { tool: "refund_order", args: { order_id: "ord_1001", amount_cents: 1500 }, operation_id: `refund-${Date.now()}` },
  { tool: "delete_customer", args: { customer_id: "cus_7" }, operation_id: `delete-${Date.now()}` },
];
for (const request of calls) {
  const envelope = await runtime.call(ctx, request);
  console.log(`${request.tool}: ${JSON.stringify(envelope)}`);
}
await store.close();
