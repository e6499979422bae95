/**
 * Runs cases one at a time in a worker thread with a per-case timeout. Compiled
 * code runs synchronously, so a hang can only be stopped by terminating the
 * thread; the pool then records a timeout and starts a fresh worker.
 */
import { Worker } from "node:worker_threads";
import type { ConformanceCase } from "./cases.js";
import type { CaseOutcome } from "./run-case.js";
import type { WorkerReply, WorkerRequest } from "./worker.js";

export interface PoolOptions {
  readonly timeoutMs: number;
  readonly optimize?: boolean;
  readonly onOutcome?: (o: CaseOutcome) => void;
}

const bootUrl = new URL("./worker-boot.mjs", import.meta.url);

export async function runCasesIsolated(cases: readonly ConformanceCase[], opts: PoolOptions): Promise<CaseOutcome[]> {
  const outcomes: CaseOutcome[] = [];
  let worker: Worker | undefined;
  try {
    for (let seq = 0; seq < cases.length; seq++) {
      const c = cases[seq]!;
      if (worker === undefined) {
        try {
          worker = await startWorker();
        } catch (err) {
          // Without a worker nothing can run: report the rest as failed, do not crash.
          const reason = `worker did not start: ${(err as Error).message.split("\n")[0]}`;
          for (const rest of cases.slice(seq)) {
            const o: CaseOutcome = { id: rest.id, note: rest.note, topic: rest.topic, status: "failed", reason, ms: 0 };
            outcomes.push(o);
            opts.onOutcome?.(o);
          }
          break;
        }
      }
      const started = performance.now();
      const reply = await runOne(worker, { seq, testCase: c, options: { optimize: opts.optimize === true } }, opts.timeoutMs);
      const ms = Math.round(performance.now() - started);
      let outcome: CaseOutcome;
      if (reply.kind === "outcome") outcome = reply.outcome;
      else {
        // The worker is gone or stuck: replace it so the next case starts clean.
        await worker.terminate();
        worker = undefined;
        outcome = { id: c.id, note: c.note, topic: c.topic, status: "failed", reason: reply.reason, ms };
      }
      outcomes.push(outcome);
      opts.onOutcome?.(outcome);
    }
  } finally {
    await worker?.terminate();
  }
  return outcomes;
}

const startupTimeoutMs = 120_000;

/** Starts a worker and waits until it has loaded the compiler. */
function startWorker(): Promise<Worker> {
  const w = new Worker(bootUrl);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void w.terminate();
      reject(new Error(`conformance worker did not start within ${startupTimeoutMs} ms`));
    }, startupTimeoutMs);
    w.once("message", () => {
      clearTimeout(timer);
      resolve(w);
    });
    w.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

type Reply = { kind: "outcome"; outcome: CaseOutcome } | { kind: "lost"; reason: string };

function runOne(worker: Worker, req: WorkerRequest, timeoutMs: number): Promise<Reply> {
  return new Promise((resolve) => {
    const finish = (r: Reply): void => {
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      resolve(r);
    };
    const onMessage = (m: WorkerReply): void => {
      if (m.seq !== req.seq) return;
      if (m.outcome !== undefined) finish({ kind: "outcome", outcome: m.outcome });
      else finish({ kind: "lost", reason: `runner crashed: ${m.crash ?? "unknown"}` });
    };
    const onError = (err: Error): void => finish({ kind: "lost", reason: `worker error: ${err.message}` });
    const onExit = (code: number): void => finish({ kind: "lost", reason: `worker exited with code ${code}` });
    const timer = setTimeout(() => finish({ kind: "lost", reason: `timeout after ${timeoutMs} ms` }), timeoutMs);
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
    worker.postMessage(req);
  });
}
