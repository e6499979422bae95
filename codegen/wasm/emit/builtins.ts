/**
 * Which Rego builtins the backend can call: natives exported by runtime.wasm (the
 * table `../runtime-builtins.ts`; arity read from the export's signature),
 * and toolgate's host builtins (`../host-builtins.ts`), reached via `opa_builtinN`.
 */
import binaryen from "binaryen";
import { HOST_BUILTINS } from "../host-builtins.js";
import { NATIVE_BUILTINS } from "../runtime-builtins.js";
import { readRuntime } from "../runtime-link.js";

/** Builtins the opa-wasm SDK itself ships in JavaScript that toolgate does not replace. */
const SDK_BUILTINS: Readonly<Record<string, number>> = {
  "yaml.is_valid": 1, "yaml.marshal": 1, "yaml.unmarshal": 1, "json.is_valid": 1,
};

export interface BuiltinImpl {
  /** native: runtime export; host: toolgate's host builtins; sdk: the SDK's own, by its plain name. */
  readonly kind: "native" | "host" | "sdk" | "print";
  /** Export name for natives. */
  readonly exportName: string;
  readonly arity: number;
}

let table: Map<string, BuiltinImpl> | undefined;

/** Every builtin the backend can call, natives first; computed once from runtime.wasm. */
export function builtinTable(): ReadonlyMap<string, BuiltinImpl> {
  if (table !== undefined) return table;
  const m = readRuntime();
  const t = new Map<string, BuiltinImpl>();
  try {
    for (const [name, exportName] of Object.entries(NATIVE_BUILTINS)) {
      const e = m.getExport(exportName);
      if (e === 0) continue;
      const fn = m.getFunction(binaryen.getExportInfo(e).value);
      const arity = binaryen.expandType(binaryen.getFunctionInfo(fn).params).length;
      t.set(name, { kind: "native", exportName, arity });
    }
    // Relations and statements the planner special-cases (RUNTIME-API.md section 5).
    if (m.getExport("tg_walk") !== 0) t.set("walk", { kind: "native", exportName: "tg_walk", arity: 1 });
    if (m.getExport("tg_print_format") !== 0) t.set("print", { kind: "print", exportName: "tg_print_format", arity: 1 });
  } finally {
    m.dispose();
  }
  for (const b of HOST_BUILTINS.values()) {
    if (!t.has(b.name)) t.set(b.name, { kind: "host", exportName: "", arity: b.arity });
  }
  for (const [name, arity] of Object.entries(SDK_BUILTINS)) {
    if (!t.has(name)) t.set(name, { kind: "sdk", exportName: "", arity });
  }
  table = t;
  return t;
}

/** name -> arity, what the planner needs. */
export function builtinArities(): Map<string, number> {
  return new Map([...builtinTable()].map(([n, b]) => [n, b.arity]));
}
