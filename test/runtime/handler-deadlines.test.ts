import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { Deadlines } from "../../src/runtime/deadlines.js";
import { abortRun, runHandler } from "../../src/runtime/handler-run.js";
import type { RuntimeDeps } from "../../src/runtime/types.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const deps = (): RuntimeDeps => ({ inFlight: new Map() }) as unknown as RuntimeDeps;
const ctx = { tenant: "t", user: "u", roles: ["agent"], run_id: "r" };
const inv = { tool: "slow", operation_id: null, fence_token: null };
const never = (): Promise<unknown> => new Promise(() => undefined);

describe("handler timeouts on shared deadlines", () => {
  it("a handler timeout never fires before the tool's timeout_ms, also when earlier calls with the same timeout settled and a lane's timer was armed for them", async () => {
    const d = deps();
    // Earlier calls settle at once: the shared timer stays armed for the first one's deadline.
    for (let i = 0; i < 50; i++) await runHandler(d, ctx, inv, 200, async () => ({ ok: true }), {});
    await sleep(120);
    const start = performance.now();
    const r = await runHandler(d, ctx, inv, 200, never, {});
    const took = performance.now() - start;
    expect(r.kind).toBe("timeout");
    expect(took).toBeGreaterThanOrEqual(199);
    expect(took).toBeLessThan(400);
  });

  it("handler timeouts of different lengths and orders each fire at their own deadline", async () => {
    const d = deps();
    const start = performance.now();
    const lengths = [150, 50, 100, 50, 150, 100];
    const done = await Promise.all(lengths.map(async (ms) => ({ ms, r: await runHandler(d, ctx, inv, ms, never, {}), at: performance.now() - start })));
    for (const { ms, r, at } of done) {
      expect(r.kind).toBe("timeout");
      expect(at).toBeGreaterThanOrEqual(ms - 1);
      expect(at).toBeLessThan(ms + 150);
    }
  });

  it("a handler that answers in time is never timed out, and its late deadline does nothing", async () => {
    const d = deps();
    const r = await runHandler(d, ctx, inv, 30, async () => ({ ok: true, value: 1 }), {});
    expect(r).toEqual({ kind: "returned", result: { ok: true, value: 1 }, interrupted: false });
    await sleep(60);
    expect(d.inFlight.size).toBe(0);
  });

  it("an interrupt aborts the handler's signal (an own enumerable ctx property, kept by a copy) and the handler's answer is marked interrupted", async () => {
    const d = deps();
    const run = runHandler(
      d,
      ctx,
      inv,
      5_000,
      (_args, c) => {
        const copy = { ...c };
        return new Promise((resolve) => copy.signal.addEventListener("abort", () => resolve({ ok: false, failure: "stopped" })));
      },
      {},
    );
    await sleep(5);
    expect(abortRun(d, "t", "r", "stop")).toBe(1);
    const r = await run;
    expect(r.kind === "returned" && r.interrupted).toBe(true);
  });

  it("a handler that throws synchronously is a thrown answer, not a timeout", async () => {
    const r = await runHandler(deps(), ctx, inv, 5_000, () => {
      throw new Error("boom");
    }, {});
    expect(r.kind).toBe("threw");
  });

  it("a timed-out handler stays abortable by an interrupt until its late answer, and is forgotten after it", async () => {
    const d = deps();
    let finish: (v: unknown) => void = () => undefined;
    const r = await runHandler(d, ctx, inv, 20, () => new Promise((resolve) => (finish = resolve)), {});
    expect(r.kind).toBe("timeout");
    expect(abortRun(d, "t", "r", "stop")).toBe(1);
    finish({ ok: true });
    if (r.kind === "timeout") expect(await r.late).toEqual({ kind: "returned", result: { ok: true } });
    expect(d.inFlight.size).toBe(0);
  });

  it("cancelled deadlines never expire and leave nothing pending", async () => {
    const q = new Deadlines();
    let fired = 0;
    const target = { expire: () => void fired++ };
    const ds = Array.from({ length: 100 }, () => q.add(20, target));
    for (const x of ds.slice(0, 99)) x.cancel();
    expect(q.pending).toBe(1);
    await sleep(60);
    expect(fired).toBe(1);
    expect(q.pending).toBe(0);
  });

  it("a settled handler's deadline does not keep the process alive (a quick call with a 30 s timeout exits at once)", () => {
    const script = `
      import { runHandler } from "./src/runtime/handler-run.ts";
      const r = await runHandler({ inFlight: new Map() }, { tenant: "t", user: "u", roles: [], run_id: "r" }, { tool: "x", operation_id: null, fence_token: null }, 30000, async () => ({ ok: true }), {});
      console.log(r.kind);`;
    const start = performance.now();
    const out = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
    expect(out.stdout.trim()).toBe("returned");
    expect(performance.now() - start).toBeLessThan(15_000);
  });
});
