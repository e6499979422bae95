/**
 * Bounded evaluation, the host's side. A module built by toolgate spends one unit
 * of fuel per loop iteration, per entry of a function that can loop or chain calls,
 * and per element (or 64 string bytes) of a builtin's operands, and aborts with
 * `policy_budget_exceeded` when its budget is used up (codegen/wasm/emit/fuel.ts).
 * The module alone starts unlimited (the unmodified SDK evaluates as OPA would);
 * toolgate's engines set a finite budget before every evaluation, so a runaway
 * policy becomes a denial instead of blocking the process.
 */

import { MODULE_EXPORTS } from "./abi.js";

/**
 * Steps per evaluation unless configured. The shipped policy takes 2-8 steps per
 * decision; a million is 30-100 ms of a runaway
 * rule on a busy 2-core machine before it is stopped.
 */
export const DEFAULT_POLICY_BUDGET = 1_000_000;

/** The decision reason of an evaluation stopped by its budget. */
export const BUDGET_EXCEEDED = "policy_budget_exceeded";

export class PolicyBudgetError extends Error {
  override name = "PolicyBudgetError";
}
export const isPolicyBudgetError = (e: unknown): e is PolicyBudgetError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "PolicyBudgetError";

/** A budget is a positive integer number of steps, or Infinity (no bound). */
export const isValidPolicyBudget = (value: unknown): value is number =>
  value === Infinity || (typeof value === "number" && Number.isSafeInteger(value) && value > 0);

export const policyBudgetProblem = (where: string, value: unknown): string =>
  `${where}: policyBudget must be a positive integer number of evaluation steps or Infinity, got ${String(value)}`;

export function checkPolicyBudget(value: unknown, where: string): number {
  if (isValidPolicyBudget(value)) return value;
  throw new PolicyBudgetError(policyBudgetProblem(where, value));
}

/** The module's fuel exports, when it has them (modules built without fuel checks, or by OPA, have none). */
export interface ModuleFuel {
  /** Sets the budget of the next evaluations (a call into the module only when it changes). */
  set(budget: number): void;
  /** True when `error`, thrown by the last evaluation, is its budget running out. */
  exceeded(error: unknown): boolean;
  /**
   * During an evaluation: spends `units` of what is left (host builtin time, host-meter.ts).
   * False, and nothing spent, when what is left cannot pay.
   */
  charge(units: number): boolean;
}

/** `exports` is a module instance's exports (typed structurally: the declarations need no DOM lib). */
export function moduleFuel(exports: Readonly<Record<string, unknown>>): ModuleFuel | null {
  const budgetSet = exports[MODULE_EXPORTS.fuelBudgetSet];
  const fuelLeft = exports[MODULE_EXPORTS.fuelLeft];
  if (typeof budgetSet !== "function" || typeof fuelLeft !== "function") return null;
  const setBudget = budgetSet as (units: number) => void;
  const left = fuelLeft as () => number;
  let current = Number.NaN;
  return {
    set(budget) {
      if (budget === current) return;
      setBudget(budget);
      current = budget;
    },
    // The counter is below zero only after the module stopped itself; the message names the reason.
    exceeded: (error) => left() < 0 && String(error instanceof Error ? error.message : error).includes(BUDGET_EXCEEDED),
    charge(units) {
      const rest = left() - units;
      if (rest < 0) return false;
      // Setting the budget refills the counter: the rest becomes both, and the next set() restores the budget.
      setBudget(rest);
      current = Number.NaN;
      return true;
    },
  };
}
