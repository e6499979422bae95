// Plain-node ESM (no tsx, no TypeScript at run time): the installed package and the
// project's compiled generated code gate real calls through the compiled policy.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime, loadOpaWasmEngineFromFiles, openSqliteStore } from "toolgate";
import { manifest, validators } from "./dist/generated/index.js";

const policy = await loadOpaWasmEngineFromFiles({ wasm: "generated/policy.wasm", data: "policies/data.json", entrypoint: manifest.policy.entrypoint });
const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), "toolgate-smoke-")), "gate.db"));
let deleted = 0;
const handlers = {
  get_order: async ({ order_id }) => ({ ok: true, value: { order_id, status: "paid", total_cents: 4200 } }),
  refund_order: async ({ amount_cents }) => ({ ok: true, value: { refund_id: "ref_1", amount_cents }, resource_id: "ref_1" }),
  delete_customer: async () => {
    deleted++;
    return { ok: true, value: { deleted: true } };
  },
};
const runtime = createRuntime({ manifest, validators, handlers, policy, store });
const ctx = { tenant: "acme", user: "alice", roles: ["agent"], run_id: "run_smoke" };

const read = await runtime.call(ctx, { tool: "get_order", args: { order_id: "ord_1001" } });
assert.equal(read.outcome, "success", JSON.stringify(read));
assert.deepEqual(read.value, { order_id: "ord_1001", status: "paid", total_cents: 4200 });

const refund = await runtime.call(ctx, { tool: "refund_order", args: { order_id: "ord_1001", amount_cents: 100 }, operation_id: "op-refund" });
assert.equal(refund.outcome === "terminal_failure" && refund.reason, "approval_required", JSON.stringify(refund));

const erase = await runtime.call(ctx, { tool: "delete_customer", args: { customer_id: "cus_7" }, operation_id: "op-delete" });
assert.equal(erase.outcome === "terminal_failure" && erase.reason, "destructive_denied", JSON.stringify(erase));
assert.equal(deleted, 0, "the destructive handler must never run");

const hostile = await runtime.call(ctx, { tool: "get_order", args: { order_id: "ord_1; DROP TABLE orders" } });
assert.equal(hostile.outcome === "terminal_failure" && hostile.reason, "invalid_arguments", JSON.stringify(hostile));

await store.close();
console.log("gated-call: read allowed, write needs approval, destructive denied, bad arguments rejected");
