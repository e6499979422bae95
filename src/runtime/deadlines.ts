/**
 * Handler deadlines on shared timers: one Node timer per distinct timeout length instead of a
 * timer set and cleared by every call. Deadlines of one length are added in time order (the
 * clock is monotonic), so each length keeps a FIFO; its timer is armed for the oldest pending
 * deadline and, when it fires, expires what is due and re-arms for the next one. A deadline
 * never expires before its length has passed on the monotonic clock. The timer keeps the
 * process alive only while one of its deadlines is pending, as a per-call timer would.
 * Enters: (length, target) pairs. Leaves: `expire()` calls on targets whose deadline passed.
 */
import { performance } from "node:perf_hooks";

/** What a deadline expires: called once, on the timer, unless the deadline was cancelled. */
export interface Expiring {
  expire(): void;
}

/** A pending deadline; `cancel()` once the work settled first. */
export interface Deadline {
  cancel(): void;
}

class Entry implements Deadline {
  target: Expiring | null;
  constructor(
    readonly at: number,
    target: Expiring,
    readonly lane: Lane,
  ) {
    this.target = target;
  }

  cancel(): void {
    if (this.target === null) return;
    this.target = null;
    this.lane.cancelled(this);
  }
}

/** The deadlines of one length, oldest first. */
class Lane {
  #queue: Entry[] = [];
  #head = 0;
  #pending = 0;
  #timer: NodeJS.Timeout | null = null;
  readonly #onTimer = (): void => this.#fire();

  constructor(
    readonly lengthMs: number,
    readonly lanes: Deadlines,
  ) {}

  add(target: Expiring): Entry {
    const e = new Entry(performance.now() + this.lengthMs, target, this);
    this.#queue.push(e);
    if (++this.#pending === 1 && this.#timer !== null) this.#timer.ref();
    // An armed timer is due no later than this deadline (it was armed for an older one).
    if (this.#timer === null) this.#timer = setTimeout(this.#onTimer, this.lengthMs);
    return e;
  }

  cancelled(e: Entry): void {
    if (--this.#pending === 0 && this.#timer !== null) this.#timer.unref();
    if (this.#queue[this.#head] === e) this.#dropSettled();
  }

  /** Drops settled entries at the front (calls mostly settle in the order they started). */
  #dropSettled(): void {
    const q = this.#queue;
    let h = this.#head;
    while (h < q.length && q[h]!.target === null) h++;
    if (h === q.length) {
      q.length = 0;
      h = 0;
    } else if (h > 1024 && h * 2 > q.length) {
      this.#queue = q.slice(h);
      h = 0;
    }
    this.#head = h;
  }

  #fire(): void {
    this.#timer = null;
    const now = performance.now();
    try {
      for (;;) {
        const e = this.#queue[this.#head];
        if (e === undefined || (e.target !== null && e.at > now)) break;
        this.#head++;
        const target = e.target;
        if (target === null) continue;
        e.target = null;
        this.#pending--;
        target.expire();
      }
    } finally {
      this.#dropSettled();
      const next = this.#queue[this.#head];
      if (next !== undefined && this.#timer === null) {
        this.#timer = setTimeout(this.#onTimer, Math.max(1, Math.ceil(next.at - now)));
        if (this.#pending === 0) this.#timer.unref();
      }
      if (next === undefined && this.#pending === 0) this.lanes.idle(this);
    }
  }

  get pending(): number {
    return this.#pending;
  }
}

/** Shared deadlines, one lane per length in use. */
export class Deadlines {
  readonly #lanes = new Map<number, Lane>();

  /** Calls `target.expire()` once `lengthMs` have passed, unless cancelled before. */
  add(lengthMs: number, target: Expiring): Deadline {
    let lane = this.#lanes.get(lengthMs);
    if (lane === undefined) {
      lane = new Lane(lengthMs, this);
      this.#lanes.set(lengthMs, lane);
    }
    return lane.add(target);
  }

  /** A lane with nothing queued and no timer is forgotten (lengths come from the manifest, but need not). */
  idle(lane: Lane): void {
    if (this.#lanes.get(lane.lengthMs) === lane) this.#lanes.delete(lane.lengthMs);
  }

  /** Deadlines not yet expired or cancelled (for tests). */
  get pending(): number {
    let n = 0;
    for (const l of this.#lanes.values()) n += l.pending;
    return n;
  }
}

/** The process's deadlines: handler timeouts of every runtime share them. */
export const handlerDeadlines = new Deadlines();
