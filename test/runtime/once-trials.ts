/** Before/after trials of the idempotency, fencing, approval-binding and demo guarantees (run from a tree's root: node --import tsx test/runtime/once-trials.ts). */
import { manifest as shipped } from "../../generated/index.js";
import { fingerprint, operationFingerprint } from "../../src/runtime/index.js";
import type { Envelope } from "../../src/runtime/index.js";
import type { Manifest } from "../../src/manifest.js";
import type { ClaimRequest } from "../../src/store/store.js";
import { escrowReconcilers } from "../../src/demo/escrow.js";
import { alice, approved, loadShippedPolicy, makeGate, until, withTool } from "./harness.js";
import type { Gate, GateOptions } from "./harness.js";
import { availableStores, openTestStores } from "../helpers/stores.js";

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const why = (e: Envelope) => (e.outcome === "success" ? "success" : e.reason);
const args = (i: number) => ({ account_id: "acc_alice", amount: 100 + i, currency: "EUR", recipient: "acc_bob" });
const inc = (t: Record<string, number>, k: string) => (t[k] = (t[k] ?? 0) + 1);
const policy = await loadShippedPolicy();

for (const storeName of availableStores()) {
  const stores = openTestStores(storeName);
  const gate = async (over: Partial<GateOptions> = {}): Promise<Gate> => makeGate({ policy, store: over.store ?? (await stores.fresh()), ...over });
  const out: Record<string, unknown> = {};

  // A timed-out handler whose effect lands late: timeout 30 ms, effect lands at 300 ms ignoring the signal, immediate retry.
  for (const max of [3, 1]) {
    let started = 0, settled = 0;
    const landings = new Map<string, { land: () => void; landed: Promise<void> }>();
    const landing = (op: string) => {
      const known = landings.get(op);
      if (known !== undefined) return known;
      let land!: () => void;
      const made = { land: () => land(), landed: new Promise<void>((res) => (land = res)) };
      landings.set(op, made);
      return made;
    };
    const m: Manifest = withTool("reserve_funds", { timeout_ms: 30, retry: { max_attempts: max, backoff: { initial_ms: 10, multiplier: 2, max_ms: 100 } } });
    const h: GateOptions["handlers"] = (base) => ({ reserve_funds: async (a, ctx) => { started++; try { await landing(ctx.operation_id ?? "").landed; return await base.reserve_funds(a, ctx); } finally { settled++; } } });
    const rc: GateOptions["reconcilers"] = (ledger) => { const real = escrowReconcilers(ledger); return { ...real, reserve_funds: async (a, ctx) => { const r = await real.reserve_funds!(a, ctx); landing(ctx.operation_id ?? "").land(); return r; } }; };
    // The late effect lands when the retry acted: a reconciler looked, or its claim found the operation busy.
    const raw = await stores.fresh();
    const store = new Proxy(raw, { get(t, k) { if (k === "claimOperation") return async (req: ClaimRequest) => { const r = await t.claimOperation(req); if (r.kind === "busy") landing(req.operation_id).land(); return r; }; const v: unknown = Reflect.get(t, k, t); return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v; } });
    const g = await gate({ manifest: m, handlers: h, reconcilers: rc, leaseMarginMs: 60_000, store });
    const ids = Array.from({ length: 100 }, (_, i) => i);
    const apr = await Promise.all(ids.map((i) => approved(g, alice, "reserve_funds", args(i), `op-${i}`)));
    const retries = await Promise.all(ids.map(async (i) => { const req = { tool: "reserve_funds", args: args(i), operation_id: `op-${i}`, approval_id: apr[i]! }; await g.runtime.call(alice, req); return g.runtime.call(alice, req); }));
    await until(() => settled === started, 20_000);
    const t: Record<string, number> = {};
    for (const i of ids) {
      inc(t, `effects=${g.ledger.effectsOf(`op-${i}`).length}`);
      inc(t, `retry=${why(retries[i]!)}`);
      inc(t, `recorded=${why(await g.runtime.call(alice, { tool: "reserve_funds", args: args(i), operation_id: `op-${i}` }))}`);
    }
    out[`late effect after timeout, max_attempts=${max} (100 trials)`] = t;
  }

  // Retention shorter than a running handler: retention 500 ms; the first gate's handler is still running when a second gate calls 600 ms later.
  {
    const t: Record<string, number> = {};
    for (let i = 0; i < 20; i++) {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const m = withTool("reserve_funds", { retention_ms: 500 });
      let a: Gate;
      try {
        a = await gate({ manifest: m, handlers: (base) => ({ reserve_funds: async (x, ctx) => { const r = await base.reserve_funds(x, ctx); await held; return r; } }) });
      } catch (err) {
        inc(t, `createRuntime refused: ${(err as Error).name}`);
        continue;
      }
      const b = await gate({ manifest: m, store: a.store, ledger: a.ledger, clock: a.clock, inProgressWaitMs: 50 });
      const id = await approved(a, alice, "reserve_funds", args(i), `op-r-${i}`);
      const first = a.runtime.call(alice, { tool: "reserve_funds", args: args(i), operation_id: `op-r-${i}`, approval_id: id });
      await until(() => a.ledger.effectsOf(`op-r-${i}`).length === 1);
      a.clock.advance(600);
      await b.runtime.call(alice, { tool: "reserve_funds", args: args(i), operation_id: `op-r-${i}`, approval_id: id });
      release();
      await first;
      inc(t, `effects=${a.ledger.effectsOf(`op-r-${i}`).length}`);
    }
    out["retention 500ms, second gate at 600ms (20 trials)"] = t;
  }

  // Crash between claim and effect: a worker dies between claim and handler; the retry after the lease (max_attempts 1).
  {
    const g = await gate({ manifest: withTool("reserve_funds", { retry: { max_attempts: 1, backoff: { initial_ms: 10, multiplier: 2, max_ms: 100 } } }) });
    const tool = shipped.tools["reserve_funds"]!;
    const apr: string[] = [];
    for (let i = 0; i < 20; i++) {
      apr.push(await approved(g, alice, "reserve_funds", args(i), `op-c-${i}`));
      await g.store.claimOperation({ tenant: alice.tenant, operation_id: `op-c-${i}`, tool: "reserve_funds", fingerprint: operationFingerprint(fingerprint(alice.tenant, "reserve_funds", args(i), tool.fingerprint), alice.user), owner: "dead", now_ms: g.clock.now(), lease_ms: tool.timeout_ms + 1_000, retention_ms: tool.retention_ms });
    }
    g.clock.advance(tool.timeout_ms + 1_000);
    const t: Record<string, number> = {};
    for (let i = 0; i < 20; i++) {
      const e = await g.runtime.call(alice, { tool: "reserve_funds", args: args(i), operation_id: `op-c-${i}`, approval_id: apr[i]! });
      inc(t, `${why(e)}, effects=${g.ledger.effectsOf(`op-c-${i}`).length}`);
    }
    out["crash before the effect (20 trials)"] = t;
  }

  // Retry budget of a retryable failure: send_notification (tools.yaml: channel_unavailable retryable 30 s, no retry block) fails once.
  {
    const failed = new Set<string>();
    const g = await gate({ handlers: (base) => ({ send_notification: async (a, ctx) => (failed.has(a.message) ? base.send_notification(a, ctx) : (failed.add(a.message), { ok: false, failure: "channel_unavailable" })) }) });
    const t: Record<string, number> = {};
    for (let i = 0; i < 20; i++) {
      const a = { account_id: "acc_bob", channel: "sms", message: `code ${i}` };
      const id = await approved(g, alice, "send_notification", a, `op-n-${i}`);
      const first = await g.runtime.call(alice, { tool: "send_notification", args: a, operation_id: `op-n-${i}`, approval_id: id });
      const second = await g.runtime.call(alice, { tool: "send_notification", args: a, operation_id: `op-n-${i}`, approval_id: id });
      inc(t, `first=${why(first)} second=${why(second)}`);
    }
    out["retryable failure, default budget (20 trials)"] = t;
  }

  // Oversized input: 50 calls with a 1 MB schema-valid argument; 50 calls with a 1 MB tool name; 1000 undecided approvals.
  {
    const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
    const MB = "x".repeat(1024 * 1024);
    const g = await gate();
    let echoed = 0, stored = 0;
    for (let i = 0; i < 50; i++) {
      const e = await g.runtime.call(alice, { tool: "reserve_funds", args: { ...args(i), recipient: `acc_${MB}` }, operation_id: `op-b-${i}` });
      echoed += bytes(e);
      if (e.outcome === "terminal_failure" && e.approval_id !== undefined) stored += bytes(await g.store.getApproval(e.approval_id));
    }
    out["oversized: 50 calls x 1 MB argument"] = { echoed_bytes: echoed, approval_bytes_stored: stored, log_bytes: bytes(await g.store.listDecisions({ tenant: alice.tenant, limit: 10_000 })) };
    const g2 = await gate();
    let echoed2 = 0;
    for (let i = 0; i < 50; i++) echoed2 += bytes(await g2.runtime.call(alice, { tool: MB, args: {} }));
    out["oversized: 50 calls x 1 MB tool name"] = { echoed_bytes: echoed2, log_bytes: bytes(await g2.store.listDecisions({ tenant: alice.tenant, limit: 10_000 })) };
    const g3 = await gate();
    const ids: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const e = await g3.runtime.call(alice, { tool: "reserve_funds", args: args(i), operation_id: `op-p-${i}` });
      if (e.outcome === "terminal_failure" && e.approval_id !== undefined) ids.push(e.approval_id);
    }
    g3.clock.advance(16 * 60_000);
    const purged = await g3.store.purgeExpired(g3.clock.now());
    const left = (await Promise.all(ids.map((id) => g3.store.getApproval(id)))).filter((a) => a !== null);
    out["oversized: 1000 undecided approvals, purge after TTL"] = { created: ids.length, purge_returned: purged, still_stored: left.length, statuses: [...new Set(left.map((a) => a!.status))] };
  }
  console.log(JSON.stringify({ store: stores.name, ...out }, null, 1));
  await stores.close();
}
