/**
 * Which Rego builtins the backend can call, read from the builtin registry
 * (src/policy/builtins): natives are runtime.wasm exports (arity = declared
 * arguments; test/builtins/registry.test.ts checks the exports' signatures),
 * host builtins are reached via `opa_builtinN`, SDK builtins by their plain name.
 */
import { BUILTINS, type BuiltinEntry, type CustomBuiltins } from "../../../src/policy/builtins/index.js";

export interface BuiltinImpl {
  /** native: runtime export; host: toolgate's host builtins; sdk: the SDK's own, by its plain name. */
  readonly kind: "native" | "host" | "sdk" | "print";
  /** Export name for natives. */
  readonly exportName: string;
  readonly arity: number;
  /** A custom builtin: its errors always abort the evaluation, so every call sets its location. */
  readonly custom?: boolean;
  /** Operands and result cross as tagged JSON text (tg_exact_encode / tg_exact_decode): sets and exact numbers survive. */
  readonly exact?: boolean;
}

/** How the backend calls one registry entry, or undefined when it has no implementation. */
export function builtinImpl(e: BuiltinEntry): BuiltinImpl | undefined {
  // print's native formats the array of its operands (the planner special-cases the statement).
  if (e.name === "print" && e.native !== undefined) return { kind: "print", exportName: e.native, arity: 1 };
  const arity = e.args.length;
  if (e.native !== undefined) return { kind: "native", exportName: e.native, arity };
  if (e.host !== undefined || e.provided === true) {
    return { kind: "host", exportName: "", arity, ...(e.custom === true ? { custom: true } : {}), ...(e.exact === true ? { exact: true } : {}) };
  }
  if (e.sdk === true) return { kind: "sdk", exportName: "", arity };
  return undefined;
}

function tableOf(entries: Iterable<BuiltinEntry>): ReadonlyMap<string, BuiltinImpl> {
  const t = new Map<string, BuiltinImpl>();
  for (const e of entries) {
    const impl = builtinImpl(e);
    if (impl !== undefined) t.set(e.name, impl);
  }
  return t;
}

const table = tableOf(BUILTINS.values());

/** Every builtin the backend can call: OPA's, and the custom ones given. */
export function builtinTable(custom?: CustomBuiltins): ReadonlyMap<string, BuiltinImpl> {
  if (custom === undefined || custom.entries.length === 0) return table;
  return new Map([...table, ...tableOf(custom.entries)]);
}

/** name -> arity, what the planner needs. */
export function builtinArities(custom?: CustomBuiltins): Map<string, number> {
  return new Map([...builtinTable(custom)].map(([n, b]) => [n, b.arity]));
}
