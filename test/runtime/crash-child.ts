/**
 * Child process of crash.test.ts. argv: <mode: crash|retry|crash-before|retry-once> <dir>
 * - crash: calls reserve_funds; the handler appends its effect to <dir>/effects.jsonl,
 *   prints EFFECT_DONE and hangs until the parent SIGKILLs it (before the outcome is recorded).
 * - crash-before: the handler prints HANDLER_START and hangs before any effect.
 * - retry: the same call with the same operation id, with the clock moved past the lease;
 *   prints the envelope as JSON. Its reconciler reads effects.jsonl by operation id.
 * - retry-once: as retry, with reserve_funds allowed a single attempt (retry.max_attempts: 1).
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { manifest, validators } from "../../generated/index.js";
import type { ToolHandlers, ToolReconcilers } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers } from "../../src/demo/escrow.js";
import { loadOpaWasmEngineFromFiles } from "../../src/policy/index.js";
import { createRuntime } from "../../src/runtime/index.js";
import { openSqliteStore } from "../../src/store/index.js";
const ENTRYPOINT = "toolgate/authz/decision";

const [mode, dir] = process.argv.slice(2);
const modes = ["crash", "retry", "crash-before", "retry-once"];
if (mode === undefined || !modes.includes(mode) || dir === undefined) throw new Error(`usage: crash-child.ts ${modes.join("|")} <dir>`);
const effects = join(dir, "effects.jsonl");
const request = JSON.parse(readFileSync(join(dir, "request.json"), "utf8")) as { args: Record<string, never>; operation_id: string; approval_id: string; ctx: { tenant: string; user: string; roles: string[]; run_id: string } };

const base = escrowHandlers(new EscrowLedger());
const handlers: ToolHandlers = {
  ...base,
  async reserve_funds(args, ctx) {
    if (mode === "crash-before") {
      process.stdout.write("HANDLER_START\n");
      setInterval(() => undefined, 1_000);
      return new Promise(() => undefined);
    }
    const resource_id = `res_${ctx.operation_id?.replace(/[^a-z0-9]/g, "")}${ctx.fence_token}`;
    appendFileSync(effects, `${JSON.stringify({ operation_id: ctx.operation_id, fence_token: ctx.fence_token, resource_id, amount: args.amount })}\n`);
    if (mode === "crash") {
      process.stdout.write("EFFECT_DONE\n");
      setInterval(() => undefined, 1_000); // keep the process alive until the parent kills it
      return new Promise(() => undefined);
    }
    return { ok: true, value: { reservation_id: resource_id, state: "reserved" }, resource_id, observed_state: { amount: args.amount, state: "reserved" } };
  },
};
const reconcilers: ToolReconcilers = {
  async reserve_funds(_args, ctx) {
    const lines = existsSync(effects) ? readFileSync(effects, "utf8").trim().split("\n").filter(Boolean) : [];
    const found = lines.map((l) => JSON.parse(l) as { operation_id: string; resource_id: string; amount: number }).find((e) => e.operation_id === ctx.operation_id);
    if (found === undefined) return { ok: "not_applied" };
    return { ok: true, value: { reservation_id: found.resource_id, state: "reserved" }, resource_id: found.resource_id, observed_state: { amount: found.amount, state: "reserved" } };
  },
};

const policy = await loadOpaWasmEngineFromFiles({ wasm: join(dir, "policy.wasm"), data: join(dir, "data.json"), entrypoint: ENTRYPOINT });
const offset = mode.startsWith("retry") ? 10 * 60_000 : 0; // the crashed owner's lease has long expired
const reserve = manifest.tools["reserve_funds"]!;
const runtime = createRuntime({
  manifest: mode === "retry-once" ? { ...manifest, tools: { ...manifest.tools, reserve_funds: { ...reserve, retry: { ...reserve.retry, max_attempts: 1 } } } } : manifest,
  validators,
  handlers,
  reconcilers,
  policy,
  store: openSqliteStore(join(dir, "state.db")),
  clock: { now: () => Date.now() + offset },
  leaseMarginMs: 1_000,
});
const envelope = await runtime.call(request.ctx, { tool: "reserve_funds", args: request.args, operation_id: request.operation_id, approval_id: request.approval_id });
process.stdout.write(`${JSON.stringify(envelope)}\n`);
