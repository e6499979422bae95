/**
 * Starts worker processes (`node --import tsx <script>`) and talks to them over
 * the IPC channel with small typed messages, so tests can line up several
 * processes at a barrier, pause one mid-call, or SIGKILL it at a chosen point.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { repoRoot } from "../repo.js";

export type ToWorker = { readonly type: string; readonly [key: string]: unknown };
export type FromWorker = { readonly type: string; readonly [key: string]: unknown };

export interface WorkerHandle {
  readonly name: string;
  readonly child: ChildProcess;
  send(msg: ToWorker): void;
  /** Resolves with the first not-yet-consumed message of this type (fails on exit or timeout). */
  next(type: string, timeoutMs?: number): Promise<FromWorker>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}


export function startWorker(script: URL, name: string, env: Readonly<Record<string, string>>): WorkerHandle {
  const child = fork(fileURLToPath(script), [], {
    cwd: repoRoot,
    execArgv: ["--import", "tsx"],
    env: { ...process.env, ...env, TOOLGATE_WORKER_NAME: name },
    stdio: ["ignore", "inherit", "pipe", "ipc"],
  });
  let err = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const inbox: FromWorker[] = [];
  const waiters: Array<{ type: string; resolve: (m: FromWorker) => void }> = [];
  child.on("message", (raw) => {
    const msg = raw as FromWorker;
    const i = waiters.findIndex((w) => w.type === msg.type);
    if (i >= 0) waiters.splice(i, 1)[0]!.resolve(msg);
    else inbox.push(msg);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    name,
    child,
    send: (msg) => void child.send(msg),
    exited,
    stderr: () => err,
    next(type, timeoutMs = 20_000) {
      const i = inbox.findIndex((m) => m.type === type);
      if (i >= 0) return Promise.resolve(inbox.splice(i, 1)[0]!);
      return new Promise<FromWorker>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: no "${type}" within ${timeoutMs} ms; unread: ${JSON.stringify(inbox)}\n${err}`)), timeoutMs);
        const done = (m: FromWorker): void => {
          clearTimeout(timer);
          resolve(m);
        };
        waiters.push({ type, resolve: done });
        void exited.then(({ code, signal }) => {
          clearTimeout(timer);
          reject(new Error(`${name} exited (code ${code}, signal ${signal}) while waiting for "${type}"\n${err}`));
        });
      });
    },
  };
}

/** Stops workers still running (used in finally blocks); only the given processes are signalled. */
export async function stopWorkers(workers: readonly WorkerHandle[]): Promise<void> {
  await Promise.all(
    workers.map(async (w) => {
      if (w.child.exitCode === null && w.child.signalCode === null) {
        w.child.kill("SIGKILL");
        await w.exited;
      }
    }),
  );
}
