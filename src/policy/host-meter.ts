/**
 * Host builtin time, counted against the evaluation's budget (budget.ts), and a
 * wall-clock deadline for the whole evaluation. The compiled module counts its own
 * steps but cannot see time spent in JavaScript: each host builtin call is timed and
 * charged at HOST_NS_PER_STEP nanoseconds per step to the module's own counter (so the
 * module's next check sees it), or to a counter kept here for a module without fuel
 * exports. The deadline is checked when a host call starts and when it returns. A call
 * that cannot be paid for, or that starts or ends after the deadline, aborts the
 * evaluation with HostBudgetExceeded; the engine answers `policy_budget_exceeded`.
 * A single host call cannot be interrupted: host builtins are linear in their operands
 * (regexes included, re2.ts), so each call is bounded by what the module already paid for.
 */
import { BUDGET_EXCEEDED } from "./budget.js";
import type { ModuleFuel } from "./budget.js";

/** One step per 100 ns of host time: about what a step of compiled code costs, so 10^6 steps allow ~100 ms in host builtins. */
export const HOST_NS_PER_STEP = 100;

/** Wall-clock milliseconds per evaluation unless configured; the shipped policy takes microseconds. */
export const DEFAULT_POLICY_DEADLINE_MS = 500;

export class HostBudgetExceeded extends Error {
  override name = "HostBudgetExceeded";
}
/** Whether an evaluation's error is the meter stopping it (the same object reaches the engine through the module). */
export const isHostBudgetExceeded = (e: unknown): e is HostBudgetExceeded => e instanceof HostBudgetExceeded;

/** A deadline is a positive number of milliseconds, or Infinity (none). */
export const isValidPolicyDeadline = (value: unknown): value is number => typeof value === "number" && value > 0 && !Number.isNaN(value);

export function checkPolicyDeadline(value: unknown, where: string): number {
  if (isValidPolicyDeadline(value)) return value;
  throw new RangeError(`${where}: deadlineMs must be a positive number of milliseconds or Infinity, got ${String(value)}`);
}

export interface HostLimits {
  /** Steps of the evaluation (Infinity: host time is not charged). */
  readonly budget: number;
  readonly deadlineMs: number;
  /** The module's step counter; null: the meter keeps its own for host time alone. */
  readonly fuel: ModuleFuel | null;
}

const UNLIMITED: HostLimits = { budget: Infinity, deadlineMs: Infinity, fuel: null };

export class HostMeter {
  private limits: HostLimits = UNLIMITED;
  private deadline = Infinity;
  /** Host steps still payable, for a module without fuel exports. */
  private ownLeft = Infinity;

  /** The limits of the next evaluations. */
  limit(limits: HostLimits): void {
    this.limits = limits;
  }

  /** At the start of an evaluation. */
  start(): void {
    const { budget, deadlineMs } = this.limits;
    this.deadline = deadlineMs === Infinity ? Infinity : performance.now() + deadlineMs;
    this.ownLeft = budget;
  }

  /** Milliseconds left to the deadline (Infinity without one): what a blocking builtin may wait. */
  remainingMs(): number {
    return this.deadline === Infinity ? Infinity : Math.max(0, this.deadline - performance.now());
  }

  /** Before a host call: its start time. */
  enter(): number {
    const now = performance.now();
    if (now > this.deadline) this.trip(`the evaluation passed its ${this.limits.deadlineMs} ms deadline`);
    return now;
  }

  /** After a host call that started at `started`. */
  leave(started: number): void {
    const now = performance.now();
    if (this.limits.budget !== Infinity) {
      const steps = Math.ceil(((now - started) * 1e6) / HOST_NS_PER_STEP);
      if (!this.pay(steps)) this.trip(`host builtin time (${(now - started).toFixed(3)} ms) used up its step budget`);
    }
    if (now > this.deadline) this.trip(`the evaluation passed its ${this.limits.deadlineMs} ms deadline`);
  }

  private pay(steps: number): boolean {
    const fuel = this.limits.fuel;
    if (fuel !== null) return fuel.charge(steps);
    if (this.ownLeft < steps) return false;
    this.ownLeft -= steps;
    return true;
  }

  private trip(why: string): never {
    throw new HostBudgetExceeded(`${BUDGET_EXCEEDED}: ${why}`);
  }
}
