/** Runs cases sent by the pool (pool.ts), one message per case, in a worker thread. */
import { parentPort } from "node:worker_threads";
import type { ConformanceCase } from "./cases.js";
import { runCase, type RunCaseOptions } from "./run-case.js";
import { errorText, loadCompiler } from "./engine.js";

export interface WorkerRequest {
  readonly seq: number;
  readonly testCase: ConformanceCase;
  readonly options: RunCaseOptions;
}
export interface WorkerReply {
  readonly seq: number;
  readonly outcome?: import("./run-case.js").CaseOutcome;
  readonly crash?: string;
}

// Load the compiler before saying ready, so its start-up is not charged to a case.
await loadCompiler();
parentPort?.postMessage({ ready: true });

parentPort?.on("message", (req: WorkerRequest) => {
  runCase(req.testCase, req.options).then(
    (outcome) => parentPort?.postMessage({ seq: req.seq, outcome } satisfies WorkerReply),
    (err: unknown) => parentPort?.postMessage({ seq: req.seq, crash: errorText(err) } satisfies WorkerReply),
  );
});
