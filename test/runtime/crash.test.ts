/**
 * Crash test: a child process is SIGKILLed after the handler's effect and before the
 * outcome is recorded; a retry with the same operation id (another process, the lease
 * expired) must reconcile and not produce a second effect. Uses the real compiled policy.
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers } from "../../src/demo/escrow.js";
import { createRuntime, isEnvelope } from "../../src/runtime/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { alice, compileShippedPolicyWasm, ENTRYPOINT, reserveArgs } from "./harness.js";
import { loadOpaWasmEngine } from "../../src/policy/index.js";
import type { JsonObject } from "../../src/manifest.js";

const child = (mode: "crash" | "retry" | "crash-before" | "retry-once", dir: string, onLine: (line: string, kill: () => void) => void) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) => {
    const p = spawn(process.execPath, ["--import", "tsx", join("test", "runtime", "crash-child.ts"), mode, dir], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (b: Buffer) => {
      out += b.toString();
      for (const line of b.toString().split("\n").filter(Boolean)) onLine(line, () => p.kill("SIGKILL"));
    });
    p.stderr.on("data", (b: Buffer) => (err += b.toString()));
    p.on("exit", (code, signal) => resolve({ code, signal, out, err }));
  });

describe("crash after the effect, before the outcome is recorded", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-crash-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the retry with the same operation id reconciles and does not produce a second effect", async () => {
    const wasm = await compileShippedPolicyWasm();
    writeFileSync(join(dir, "policy.wasm"), wasm);
    copyFileSync("policies/data.json", join(dir, "data.json"));
    const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;

    // The parent asks for and grants the approval, in the same store file the children use.
    const store = openSqliteStore(join(dir, "state.db"));
    const policy = await loadOpaWasmEngine({ wasm, entrypoint: ENTRYPOINT, data });
    const rt = createRuntime({ manifest, validators, handlers: escrowHandlers(new EscrowLedger()), policy, store });
    const args = reserveArgs(2_500);
    const ask = await rt.call(alice, { tool: "reserve_funds", args, operation_id: "op-crash" });
    expect(ask).toMatchObject({ reason: "approval_required" });
    const approval_id = ask.outcome === "terminal_failure" ? (ask.approval_id ?? "") : "";
    expect((await rt.approvals.decide(approval_id, { decision: "approve" }, { tenant: alice.tenant, user: "bob", roles: ["approver"] })).ok).toBe(true);
    writeFileSync(join(dir, "request.json"), JSON.stringify({ args, operation_id: "op-crash", approval_id, ctx: alice }));

    const crashed = await child("crash", dir, (line, kill) => line === "EFFECT_DONE" && kill());
    expect(crashed.signal, crashed.err).toBe("SIGKILL");
    const effectsAfterCrash = readFileSync(join(dir, "effects.jsonl"), "utf8").trim().split("\n");
    expect(effectsAfterCrash).toHaveLength(1);
    expect(await store.getOperation(alice.tenant, "op-crash", Date.now())).toMatchObject({ status: "in_progress", fence_token: 1, envelope: null });

    const retried = await child("retry", dir, () => undefined);
    expect(retried.code, retried.err).toBe(0);
    const envelope = JSON.parse(retried.out.trim().split("\n").at(-1) ?? "null") as unknown;
    expect(isEnvelope(envelope)).toBe(true);
    expect(envelope).toMatchObject({ outcome: "success", resource_id: JSON.parse(effectsAfterCrash[0] ?? "{}").resource_id, operation_id: "op-crash" });
    expect(readFileSync(join(dir, "effects.jsonl"), "utf8").trim().split("\n")).toHaveLength(1);
    expect(await store.getOperation(alice.tenant, "op-crash", Date.now() + 10 * 60_000)).toMatchObject({ status: "final", fence_token: 2 });
    await store.close();
  });
});

describe("crash between the claim and the handler, before the effect", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-crash-before-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a claim that provably did not apply its effect does not consume the retry budget (max_attempts 1)", async () => {
    const wasm = await compileShippedPolicyWasm();
    writeFileSync(join(dir, "policy.wasm"), wasm);
    copyFileSync("policies/data.json", join(dir, "data.json"));
    const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
    const store = openSqliteStore(join(dir, "state.db"));
    const policy = await loadOpaWasmEngine({ wasm, entrypoint: ENTRYPOINT, data });
    const rt = createRuntime({ manifest, validators, handlers: escrowHandlers(new EscrowLedger()), policy, store });
    const args = reserveArgs(3_500);
    const ask = await rt.call(alice, { tool: "reserve_funds", args, operation_id: "op-crash-before" });
    const approval_id = ask.outcome === "terminal_failure" ? (ask.approval_id ?? "") : "";
    expect((await rt.approvals.decide(approval_id, { decision: "approve" }, { tenant: alice.tenant, user: "bob", roles: ["approver"] })).ok).toBe(true);
    writeFileSync(join(dir, "request.json"), JSON.stringify({ args, operation_id: "op-crash-before", approval_id, ctx: alice }));

    const crashed = await child("crash-before", dir, (line, kill) => line === "HANDLER_START" && kill());
    expect(crashed.signal, crashed.err).toBe("SIGKILL");
    expect(existsSync(join(dir, "effects.jsonl"))).toBe(false);
    expect(await store.getOperation(alice.tenant, "op-crash-before", Date.now())).toMatchObject({ status: "in_progress", fence_token: 1, attempts: 1 });

    const retried = await child("retry-once", dir, () => undefined);
    expect(retried.code, retried.err).toBe(0);
    const envelope = JSON.parse(retried.out.trim().split("\n").at(-1) ?? "null") as unknown;
    expect(isEnvelope(envelope)).toBe(true);
    expect(envelope).toMatchObject({ outcome: "success", operation_id: "op-crash-before" });
    expect(readFileSync(join(dir, "effects.jsonl"), "utf8").trim().split("\n")).toHaveLength(1);
    expect(await store.getOperation(alice.tenant, "op-crash-before", Date.now() + 10 * 60_000)).toMatchObject({ status: "final", fence_token: 2, attempts: 1 });
    await store.close();
  });
});
