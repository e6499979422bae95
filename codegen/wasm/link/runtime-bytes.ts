/**
 * The bytes of the runtime library every compilation links against: runtime.wasm
 * (read once per process), or a replacement for comparing library versions.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const RUNTIME_WASM_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "runtime.wasm");

let fileBytes: Uint8Array | undefined;
let override: Uint8Array | undefined;

/** Links later compilations against `bytes` instead of runtime.wasm (undefined: the file again). */
export function useRuntimeBytes(bytes: Uint8Array | undefined): void {
  override = bytes;
}

export function runtimeBytes(): Uint8Array {
  return override ?? (fileBytes ??= new Uint8Array(readFileSync(RUNTIME_WASM_FILE)));
}
