/**
 * Strict builtin errors, decided per evaluation by the host. A module built by toolgate
 * exports the runtime's mutable global `tg_strict_builtin_errors`: at 1, a failing
 * builtin in compiled code aborts the evaluation instead of being undefined
 * (codegen/wasm/RUNTIME-API.md, Errors), and the host builtins do the same
 * (host-builtins/index.ts `strictErrors`). So one module serves both modes: OPA's
 * lenient behaviour, or every builtin error failing the decision closed. A module
 * compiled with strict errors is strict whatever the host sets.
 */

import { TOOLGATE_HOST_EXPORTS } from "./abi.js";

/** The runtime's switch, kept exported by the linker (codegen/wasm/link/kept-exports.ts). */
const STRICT_ERRORS_EXPORT = TOOLGATE_HOST_EXPORTS.strictBuiltinErrors;

export interface ModuleStrictErrors {
  /** Sets the mode of the next evaluations (writes the global only when it changes). */
  set(on: boolean): void;
}

interface GlobalLike {
  value: unknown;
}

/** The module's switch, or null for a module without it (built before it was exported, or by OPA). */
export function moduleStrictErrors(exports: Readonly<Record<string, unknown>>): ModuleStrictErrors | null {
  const g = exports[STRICT_ERRORS_EXPORT];
  if (!(g instanceof WebAssembly.Global)) return null;
  const global = g as GlobalLike;
  try {
    global.value = global.value; // an immutable global throws here
  } catch {
    return null;
  }
  let current: unknown = global.value;
  return {
    set(on) {
      const v = on ? 1 : 0;
      if (v === current) return;
      global.value = v;
      current = v;
    },
  };
}

/** Thrown by an engine asked for strict errors by a module that cannot give them. */
export const NO_STRICT_SWITCH = `policy.wasm cannot report its builtin errors (no ${STRICT_ERRORS_EXPORT} export): rebuild it with \`toolgate build\``;

/**
 * What the decision log keeps of an evaluation error: for a builtin error its code and
 * the builtin (`eval_builtin_error: to_number`), never the operands it names (they may
 * be arguments the log erases); for any other error its first line, bounded.
 */
export function evaluationErrorText(err: unknown): string {
  const message = typeof err === "object" && err !== null && typeof (err as { message?: unknown }).message === "string" ? (err as { message: string }).message : String(err);
  const builtin = /(eval_(?:type|builtin)_error): ([A-Za-z_][\w.]*):/.exec(message);
  if (builtin !== null) return `${builtin[1]}: ${builtin[2]}`;
  const line = message.split("\n", 1)[0]!.replace(/^\S+:\d+:\d+: /, "");
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
