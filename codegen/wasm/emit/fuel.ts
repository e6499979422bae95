/**
 * Bounded evaluation. Generated code spends fuel in proportion to the work it is
 * about to do and aborts before doing it when the budget cannot pay:
 *  - a scan costs one unit per element, charged once before its loop (a scan always
 *    runs to its end, so this is exactly one unit per iteration, with one check per
 *    scan instead of one per iteration);
 *  - a function costs one unit at its entry unless `fuel-leaves.ts` shows its work
 *    is bounded by its code (no scan, calls only of leaves), which its caller's checks
 *    then pay for; a memo hit is answered before the check;
 *  - a builtin whose work grows with its operands costs what `fuel-builtins.ts` says,
 *    charged at the call site before the call.
 * Each plan starts with the full budget. When the fuel runs out the evaluation aborts
 * through `opa_runtime_error` with `<file>:<row>:<col>: policy_budget_exceeded: ...`
 * at the scan, function or call that ran out, so the host turns it into a denial.
 *
 * The budget lives in the module (i64 globals) and starts unlimited, so the
 * unmodified SDK evaluates exactly as OPA would; a host sets it through the export
 * `toolgate_fuel_budget_set(units: f64)` (Infinity = unlimited; it also refills the
 * counter) and reads what is left with `toolgate_fuel_left() -> f64` (negative once
 * the budget was exceeded). The custom section `toolgate.fuel` records how many
 * checks of each kind the module has (a static measure of their cost). The names
 * and the section's shape are the ABI's (src/policy/abi.ts).
 */
import * as binaryen from "../link/builder-api.js";
import type { Location } from "../../plan/ir.js";
import { MODULE_EXPORTS } from "../../../src/policy/abi.js";
import type { FuelSection, FuelSite } from "../../../src/policy/abi.js";

type Ref = binaryen.ExpressionRef;

const FUEL = "tg_fuel";
const BUDGET = "tg_fuel_budget";
const OUT = "tg_fuel_out";
const FUEL_BUDGET_SET_EXPORT = MODULE_EXPORTS.fuelBudgetSet;
const FUEL_LEFT_EXPORT = MODULE_EXPORTS.fuelLeft;
export const FUEL_MESSAGE = "policy_budget_exceeded: evaluation used up its step budget";
const UNLIMITED = 0x7fff_ffff_ffff_ffffn;

/** What the fuel code needs from the module being built. */
export interface FuelEnv {
  readonly m: binaryen.Module;
  /** Address of a NUL-terminated static C string. */
  cstring(s: string): number;
  /** Name of a source file by its index. */
  file(index: number): string;
  /** Internal name of the runtime's `opa_runtime_error(file, row, col, msg)`. */
  readonly runtimeError: string;
}

export class Fuel {
  private installed = false;
  private readonly checks: Record<FuelSite, number> = { entry: 0, scan: 0, builtin: 0 };
  private unchecked = 0;

  constructor(private readonly env: FuelEnv) {}

  /** Spend `cost` (an i64 expression, never negative); abort at `loc` when the budget cannot pay. */
  charge(site: FuelSite, cost: Ref, loc: Location | undefined): Ref {
    this.install();
    this.checks[site]++;
    const m = this.env.m;
    const at = loc ?? { file: -1, row: 0, col: 0 };
    return m.block(null, [
      m.global.set(FUEL, m.i64.sub(m.global.get(FUEL, binaryen.i64), cost)),
      m.if(
        m.i64.lt_s(m.global.get(FUEL, binaryen.i64), m.i64.const(0n)),
        m.call(OUT, [m.i32.const(this.env.cstring(at.file < 0 ? "unknown" : this.env.file(at.file))), m.i32.const(at.row), m.i32.const(at.col)], binaryen.none),
      ),
    ]);
  }

  /** One unit at the entry of a function that loops or calls. */
  entry(loc: Location | undefined): Ref {
    return this.charge("entry", this.env.m.i64.const(1n), loc);
  }

  /** A function left without an entry check (counted for the custom section). */
  uncheckedFunction(): void {
    this.unchecked++;
  }

  /** One unit per element of a scan of `length` (an i32 expression) elements, before its loop. */
  scan(length: Ref, loc: Location): Ref {
    return this.charge("scan", this.env.m.i64.extend_u(length), loc);
  }

  /** Fill the tank: the start of every plan. */
  reset(): Ref {
    this.install();
    const m = this.env.m;
    return m.global.set(FUEL, m.global.get(BUDGET, binaryen.i64));
  }

  /** The `toolgate.fuel` section: how many checks of each kind the module has. */
  section(): FuelSection {
    const { entry } = this.checks;
    return { version: 1, checks: { ...this.checks }, functions: { checked: entry, unchecked: this.unchecked } };
  }

  private install(): void {
    if (this.installed) return;
    this.installed = true;
    const { m } = this.env;
    const i64 = binaryen.i64;
    const i32 = binaryen.i32;
    const f64 = binaryen.f64;
    const unlimited = (): Ref => m.i64.const(UNLIMITED);
    m.addGlobal(BUDGET, i64, true, unlimited());
    m.addGlobal(FUEL, i64, true, unlimited());
    // Cold path, kept out of line so each check site stays small.
    m.addFunction(OUT, binaryen.createType([i32, i32, i32]), binaryen.none, [], m.block(null, [
      m.call(this.env.runtimeError, [m.local.get(0, i32), m.local.get(1, i32), m.local.get(2, i32), m.i32.const(this.env.cstring(FUEL_MESSAGE))], binaryen.none),
      m.unreachable(),
    ]));
    // Saturating: Infinity (and anything above 2^63) is unlimited, NaN and negatives are 0.
    // It also fills the tank, so a failure before the next plan starts is not read as an exhausted budget.
    m.addFunction(FUEL_BUDGET_SET_EXPORT, binaryen.createType([f64]), binaryen.none, [], m.block(null, [
      m.global.set(BUDGET, m.select(m.f64.gt(m.local.get(0, f64), m.f64.const(0)), m.i64.trunc_s_sat.f64(m.local.get(0, f64)), m.i64.const(0n))),
      m.global.set(FUEL, m.global.get(BUDGET, i64)),
    ]));
    m.addFunctionExport(FUEL_BUDGET_SET_EXPORT, FUEL_BUDGET_SET_EXPORT);
    m.addFunction(FUEL_LEFT_EXPORT, binaryen.none, f64, [], m.f64.convert_s.i64(m.global.get(FUEL, i64)));
    m.addFunctionExport(FUEL_LEFT_EXPORT, FUEL_LEFT_EXPORT);
  }
}
