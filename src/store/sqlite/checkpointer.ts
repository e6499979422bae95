/**
 * Background WAL checkpoints for SQLite files. With `synchronous = NORMAL` in WAL mode a
 * commit never fsyncs; the fsyncs happen when the WAL is copied back into the database
 * (a checkpoint), which SQLite by default runs inside whichever commit crosses
 * `wal_autocheckpoint` pages: every few hundred commits one caller waits for two fsyncs.
 * Here one worker thread per process, with a connection of its own per file, runs
 * `PRAGMA wal_checkpoint(PASSIVE)` every `intervalMs` (passive: it never blocks a writer,
 * and a writer never waits for it), so no call waits for a checkpoint's fsync. The store
 * keeps SQLite's automatic checkpoint as a backstop at a larger threshold.
 *
 * The worker starts with the first registered file and ends with the last; it never keeps
 * the process alive. Enters: file paths. Leaves: checkpoints.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** Pages the WAL may reach before a commit checkpoints inline (about 40 MB of 4 KiB pages). */
export const backstopCheckpointPages = 10_000;
export const defaultCheckpointIntervalMs = 200;

export interface CheckpointHandle {
  /** Stops checkpointing this file; settles once the worker closed its connection to it. */
  stop(): Promise<void>;
}

type ToWorker = { readonly type: "open"; readonly id: number; readonly path: string; readonly intervalMs: number } | { readonly type: "close"; readonly id: number };
type FromWorker = { readonly type: "closed"; readonly id: number } | { readonly type: "error"; readonly id: number; readonly message: string };

// CommonJS, evaluated in the worker: the same better-sqlite3 the store loaded, by path.
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.betterSqlite3);
const files = new Map();
parentPort.on("message", (m) => {
  if (m.type === "open") {
    try {
      const db = new Database(m.path, { fileMustExist: true });
      db.pragma("busy_timeout = 0");
      const checkpoint = () => {
        try { db.pragma("wal_checkpoint(PASSIVE)"); } catch (err) {
          // SQLITE_BUSY: another checkpointer is at work; the next tick tries again.
          if (err && err.code !== "SQLITE_BUSY") parentPort.postMessage({ type: "error", id: m.id, message: String(err && err.message) });
        }
      };
      files.set(m.id, { db, timer: setInterval(checkpoint, m.intervalMs) });
    } catch (err) {
      parentPort.postMessage({ type: "error", id: m.id, message: String(err && err.message) });
    }
  } else if (m.type === "close") {
    const f = files.get(m.id);
    if (f !== undefined) {
      clearInterval(f.timer);
      f.db.close();
      files.delete(m.id);
    }
    parentPort.postMessage({ type: "closed", id: m.id });
  }
});
`;

let worker: Worker | null = null;
let nextId = 1;
const closing = new Map<number, () => void>();
const onError = new Map<number, (message: string) => void>();

function ensureWorker(): Worker {
  if (worker !== null) return worker;
  const betterSqlite3 = createRequire(import.meta.url).resolve("better-sqlite3");
  const w = new Worker(workerSource, { eval: true, workerData: { betterSqlite3 } });
  w.on("message", (m: FromWorker) => {
    if (m.type === "closed") {
      closing.get(m.id)?.();
      closing.delete(m.id);
    } else onError.get(m.id)?.(m.message);
  });
  w.on("error", (err) => {
    for (const report of onError.values()) report(err.message);
  });
  w.on("exit", () => {
    if (worker === w) worker = null;
    for (const done of closing.values()) done();
    closing.clear();
  });
  // After the listeners: attaching a message listener references the worker again.
  w.unref();
  worker = w;
  return w;
}

/**
 * Checkpoints the WAL of the database file at `path` in the background until `stop`.
 * `report` receives a checkpoint that failed for another reason than a concurrent one.
 */
export function startCheckpointer(path: string, intervalMs: number, report: (message: string) => void): CheckpointHandle {
  const id = nextId++;
  const w = ensureWorker();
  onError.set(id, report);
  w.postMessage({ type: "open", id, path, intervalMs } satisfies ToWorker);
  let stopped: Promise<void> | null = null;
  return {
    stop() {
      if (stopped !== null) return stopped;
      // Referenced while the answer is outstanding, so a process awaiting close() waits for it.
      w.ref();
      stopped = new Promise<void>((resolve) => {
        closing.set(id, () => {
          onError.delete(id);
          if (onError.size === 0 && worker === w) {
            worker = null;
            void w.terminate();
          } else w.unref();
          resolve();
        });
        w.postMessage({ type: "close", id } satisfies ToWorker);
      });
      return stopped;
    },
  };
}
