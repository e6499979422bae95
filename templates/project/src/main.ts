/**
 * The whole loop of gated calls, over the store the environment names (the SQLite file
 * toolgate.db, or PostgreSQL when TOOLGATE_PG_URL is set):
 *   1. a read: allowed;
 *   2. a refund: the policy asks a human first (approval_required);
 *   3. a human approves it (here through the approvals API, printed as the CLI command a
 *      human runs; `npm start -- --wait` waits for you to run it instead);
 *   4. the host resumes the approved call: the refund runs, once;
 *   5. the model retries with the same operation id: the recorded outcome is replayed;
 *   6. a deletion: denied;
 *   7. a second refund of the same order, approved, over the order's daily refund limit
 *      (tools.yaml `limits: refunds_per_order`): refused when it runs, nothing refunded.
 *      The limit counts every refund of the order in the last 24 hours, across runs: run this
 *      three times within a day on the same store and step 4 is refused too.
 */
import { createRuntime, loadOpaWasmEngineFromFiles, openStoreFromEnv } from "toolgate";
import { createGate, manifest, policyBuiltins, validators } from "../generated/index.js";
import { handlers, reconcilers } from "./handlers.js";

const policy = await loadOpaWasmEngineFromFiles({
  wasm: "generated/policy.wasm",
  data: "policies/data.json",
  entrypoint: manifest.policy.entrypoint,
  builtins: policyBuiltins, // tools.yaml policy.builtins (none in this starter)
});
// PostgreSQL when TOOLGATE_PG_URL is set (migrated on open), else the SQLite file $TOOLGATE_DB or toolgate.db.
const store = await openStoreFromEnv({ migrate: true });
const runtime = createRuntime({ manifest, validators, handlers, reconcilers, policy, store });
// Typed calls: arguments are checked against each tool's input type, a success value has its output type.
const gate = createGate(runtime);

// Who is calling comes from your host (session, auth), never from the model.
const ctx = { tenant: "acme", user: "alice", roles: ["agent"], run_id: `run_${Date.now()}` };
const approver = { tenant: "acme", user: "bob", roles: ["approver"] };
const show = (step: string, envelope: unknown): void => console.log(`${step}\n   ${JSON.stringify(envelope)}`);
const storeFlag = process.env.TOOLGATE_PG_URL ? "--url \"$TOOLGATE_PG_URL\"" : `--db ${process.env.TOOLGATE_DB || "toolgate.db"}`;

try {
  const order = await gate.tools.get_order(ctx, { order_id: "ord_1001" });
  show("1. get_order (a read: allowed)", order);
  if (order.outcome === "success") console.log(`   order ${order.value.order_id} is ${order.value.status}, total ${order.value.total_cents} cents`);

  const refund = { order_id: "ord_1001", amount_cents: 1500 };
  const operation_id = `refund-${ctx.run_id}`; // the same id on every retry of this refund
  const asked = await gate.tools.refund_order(ctx, refund, { operation_id });
  show("2. refund_order (an external write: the policy asks a human)", asked);
  if (asked.outcome !== "terminal_failure" || asked.approval_id === undefined) throw new Error(`expected approval_required, got ${JSON.stringify(asked)}`);
  const approvalId = asked.approval_id;

  const command = `npx toolgate approvals approve ${approvalId} ${storeFlag} --as ${approver.user} --tenant ${approver.tenant} --role ${approver.roles.join(" --role ")}`;
  if (process.argv.includes("--wait")) {
    console.log(`3. waiting for a human to decide; in another terminal run:\n   ${command}`);
    for (;;) {
      const detail = await runtime.approvals.get(approvalId);
      if (detail === null || detail.status !== "pending" || detail.expired) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
  } else {
    const decided = await runtime.approvals.decide(approvalId, { decision: "approve", reason: "matches the customer's request" }, approver);
    console.log(`3. ${approver.user} approves, as a human would from a terminal:\n   ${command}\n   -> ${decided.ok ? decided.approval.status : decided.message}`);
  }

  const resumed = await runtime.approvals.resume(approvalId);
  show("4. the host resumes the approved call: the refund runs once", resumed.ok ? resumed.envelope : resumed);

  const retried = await gate.tools.refund_order(ctx, refund, { operation_id, approval_id: approvalId });
  show("5. the model retries with the same operation id: the recorded outcome is replayed, no second refund", retried);
  if (retried.outcome === "success") console.log(`   refund ${retried.value.refund_id} (${retried.value.amount_cents} cents), replayed: ${retried.replayed}`);

  show("6. delete_customer (destructive: always denied)", await gate.tools.delete_customer(ctx, { customer_id: "cus_7" }, { operation_id: `delete-${ctx.run_id}` }));

  const second = { order_id: "ord_1001", amount_cents: 3000 };
  const again = await gate.tools.refund_order(ctx, second, { operation_id: `refund-2-${ctx.run_id}` });
  if (again.outcome === "terminal_failure" && again.approval_id !== undefined) {
    await runtime.approvals.decide(again.approval_id, { decision: "approve", reason: "second refund" }, approver);
    const over = await runtime.approvals.resume(again.approval_id);
    show("7. a second refund of 30.00, approved: over refunds_per_order (42.00 per order a day), refused when it runs", over.ok ? over.envelope : over);
  }
  console.log(`\nEvery decision is in the log: npx toolgate log ${storeFlag}`);
} finally {
  await store.close();
}
