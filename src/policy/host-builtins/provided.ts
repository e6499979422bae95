/**
 * Host builtins whose implementation the run-time entry does not ship: `rego.parse_module`
 * needs the Rego parser, which is part of the build tools (codegen/). The registry marks
 * them `provided: true`; the build tools register the implementation when they load
 * (the CLI's commands, `toolgate/testing`, the corpus harness). Where nothing registered
 * it, a call fails with an error that says so, in strict and non-strict mode alike: the
 * policy cannot silently treat it as undefined.
 */
import type { HostBuiltinFn } from "../builtins/index.js";
import { BUILTINS } from "../builtins/index.js";

const registered = new Map<string, HostBuiltinFn>();

/** Registers implementations of `provided` builtins (the names must be declared so in the registry). */
export function provideHostBuiltins(group: Readonly<Record<string, HostBuiltinFn>>): void {
  for (const [name, fn] of Object.entries(group)) {
    if (BUILTINS.get(name)?.provided !== true) throw new Error(`builtin ${name} is not declared as provided by the build tools`);
    registered.set(name, fn);
  }
}

/** The registered implementation, or undefined where the build tools are not loaded. */
export function providedImplementation(name: string): HostBuiltinFn | undefined {
  return registered.get(name);
}

/** Every builtin the registry marks `provided`, with its arity. */
export function providedBuiltins(): readonly { readonly name: string; readonly arity: number }[] {
  return [...BUILTINS.values()].filter((e) => e.provided === true).map((e) => ({ name: e.name, arity: e.args.length }));
}

/** Why a call of a provided builtin cannot run here. */
export function notProvidedMessage(name: string): string {
  return `${name} needs toolgate's Rego parser, which the runtime entry does not load: it runs under \`toolgate test\` and \`toolgate eval\`, and through toolgate/testing`;
}
