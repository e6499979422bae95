/**
 * Group commit of decision-log entries, shared by the stores: entries are queued
 * and written many per transaction, every `maxDelayMs` or every `maxBatchRows`
 * entries, and on flush, close and process exit. With `durability: "sync"` each
 * entry is committed before `append` settles (for deployments whose audit must be
 * synchronous). Enters: entries. Leaves: calls of the store's batch writer.
 */
import type { DecisionLogEntry } from "./store.js";

export interface DecisionLogOptions {
  /**
   * `batched` (default): a call's decision-log entry is committed with others a few
   * milliseconds later, so a read makes no synchronous durable write; entries still queued
   * when the process is killed (SIGKILL, power loss) are lost. `sync`: every entry is
   * committed before the call answers.
   */
  readonly durability?: "batched" | "sync";
  /** Batched: write once this many entries are queued. Default 256. */
  readonly maxBatchRows?: number;
  /** Batched: longest an entry waits in the queue, in ms. Default 5. */
  readonly maxDelayMs?: number;
  /**
   * Link every entry into its tenant's audit chain (default true; see src/store/README.md).
   * `false` writes entries unchained, which `toolgate log verify` reports as a break once a
   * tenant's chain has begun: it exists to measure the chain's cost against the plain log.
   */
  readonly chain?: boolean;
  /** Receives failed batch writes (the entries are dropped after reporting). Default: stderr. */
  readonly onError?: (err: unknown) => void;
}

export type DecisionWriter = (entries: readonly DecisionLogEntry[]) => Promise<void>;

// One pair of process listeners for every live batch, however many stores are open.
const live = new Set<DecisionBatch>();
let listening = false;
function listen(): void {
  if (listening) return;
  listening = true;
  // On exit only synchronous work runs: this writes for stores whose writer is synchronous
  // (SQLite); beforeExit (the event loop ran dry) gives asynchronous writers their turn.
  process.on("exit", () => {
    for (const b of live) void b.flush();
  });
  process.on("beforeExit", () => {
    for (const b of live) if (b.pending > 0) void b.flush();
  });
}

const defaultOnError = (err: unknown): void =>
  void process.stderr.write(`toolgate decision log: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);

export class DecisionBatch {
  readonly #write: DecisionWriter;
  readonly #sync: boolean;
  readonly #maxRows: number;
  readonly #maxDelayMs: number;
  readonly #onError: (err: unknown) => void;
  #queue: DecisionLogEntry[] = [];
  #timer: NodeJS.Timeout | null = null;
  #inFlight = new Set<Promise<void>>();

  constructor(write: DecisionWriter, opts: DecisionLogOptions = {}) {
    this.#write = write;
    this.#sync = opts.durability === "sync";
    this.#maxRows = Math.max(1, Math.floor(opts.maxBatchRows ?? 256));
    this.#maxDelayMs = Math.max(0, opts.maxDelayMs ?? 5);
    this.#onError = opts.onError ?? defaultOnError;
    if (!this.#sync) {
      live.add(this);
      listen();
    }
  }

  get durability(): "batched" | "sync" {
    return this.#sync ? "sync" : "batched";
  }

  /** Entries queued and not yet handed to the writer. */
  get pending(): number {
    return this.#queue.length;
  }

  append(entry: DecisionLogEntry): Promise<void> {
    if (this.#sync) return this.#write([entry]);
    this.#queue.push(entry);
    if (this.#queue.length >= this.#maxRows) void this.flush();
    else if (this.#timer === null) {
      this.#timer = setTimeout(() => void this.flush(), this.#maxDelayMs);
      this.#timer.unref();
    }
    return Promise.resolve();
  }

  /**
   * Takes the queued entries for a transaction of the store's own (the outcome of a write).
   * Batches already handed to the writer hold earlier entries: the store orders its
   * transaction after them (SQLite's writer is synchronous, so they are committed; the
   * PostgreSQL store chains its log writes). If that transaction fails, `putBack` the entries.
   */
  take(): DecisionLogEntry[] {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const taken = this.#queue;
    this.#queue = [];
    return taken;
  }

  /** Queues entries taken with `take` again, ahead of newer ones. */
  putBack(entries: readonly DecisionLogEntry[]): void {
    if (entries.length === 0) return;
    this.#queue = [...entries, ...this.#queue];
    if (this.#timer === null) {
      this.#timer = setTimeout(() => void this.flush(), this.#maxDelayMs);
      this.#timer.unref();
    }
  }

  /** Writes what is queued; settles when every write started so far has settled. Never rejects. */
  flush(): Promise<void> {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      let write: Promise<void>;
      try {
        write = this.#write(batch);
      } catch (err) {
        write = Promise.reject(err);
      }
      const done = write.catch((err: unknown) => this.#onError(err)).finally(() => this.#inFlight.delete(done));
      this.#inFlight.add(done);
    }
    return Promise.all([...this.#inFlight]).then(() => undefined);
  }

  /** Flushes and stops listening for process exit. */
  async close(): Promise<void> {
    await this.flush();
    live.delete(this);
  }
}
