/**
 * Direct access to runtime.wasm exports for unit tests: values go in as JSON text
 * (opa_json_parse) and come out as JSON text (opa_json_dump), no SDK in between.
 */
import { readFileSync } from "node:fs";
import { RUNTIME_WASM_FILE } from "../../codegen/wasm/runtime-link.js";

const HEAP_BASE = 1 << 16; // the runtime's own data ends well below the first 64 KiB

export class AbortError extends Error {
  override name = "AbortError";
}

export interface Runtime {
  readonly exports: Record<string, (...args: (number | bigint)[]) => number>;
  readonly memory: WebAssembly.Memory;
  /** Parses JSON text into a value address (0 when the runtime rejects it). */
  parse(json: string): number;
  /** JSON text of a value, or undefined for address 0. */
  dump(v: number): string | undefined;
  dumpRego(v: number): string | undefined;
  call(name: string, ...args: (number | bigint)[]): number;
  setStrict(on: boolean): void;
}

let compiled: WebAssembly.Module | undefined;

export function loadRuntime(): Runtime {
  compiled ??= new WebAssembly.Module(readFileSync(RUNTIME_WASM_FILE));
  const memory = new WebAssembly.Memory({ initial: 2 });
  const cstring = (addr: number): string => {
    const bytes = new Uint8Array(memory.buffer);
    let end = addr;
    while (bytes[end] !== 0) end++;
    return new TextDecoder().decode(bytes.subarray(addr, end));
  };
  const instance = new WebAssembly.Instance(compiled, {
    env: {
      memory,
      opa_abort: (addr: number) => {
        throw new AbortError(cstring(addr));
      },
      opa_println: () => undefined,
    },
    toolgate: {
      heap_base: () => HEAP_BASE,
      eval: () => 0,
      entrypoints: () => 0,
      builtins: () => 0,
    },
  });
  const exports = instance.exports as unknown as Runtime["exports"];
  const fn = (name: string): ((...args: (number | bigint)[]) => number) => {
    const f = exports[name];
    if (typeof f !== "function") throw new Error(`runtime.wasm has no export ${name}`);
    return f;
  };
  const strict = instance.exports.tg_strict_builtin_errors as WebAssembly.Global;
  return {
    exports,
    memory,
    parse(json) {
      const bytes = new TextEncoder().encode(json);
      const addr = fn("opa_malloc")(bytes.length);
      new Uint8Array(memory.buffer).set(bytes, addr);
      return fn("opa_json_parse")(addr, bytes.length);
    },
    dump(v) {
      return v === 0 ? undefined : cstring(fn("opa_json_dump")(v));
    },
    dumpRego(v) {
      return v === 0 ? undefined : cstring(fn("opa_value_dump")(v));
    },
    call(name, ...args) {
      return fn(name)(...args);
    },
    setStrict(on) {
      strict.value = on ? 1 : 0;
    },
  };
}
