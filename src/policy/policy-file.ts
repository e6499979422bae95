/**
 * Loads a compiled policy from disk: a `policy.wasm` (with an optional data.json)
 * or an OPA-style bundle (`.tar.gz` with `/policy.wasm` and `/data.json`, as
 * `toolgate build` writes). Enters: a path. Leaves: a loaded PolicyEngine, or a
 * PolicyLoadError that names the file and what is wrong.
 */
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { Header } from "tar";
import type { JsonObject } from "../manifest.js";
import type { PolicyEngine } from "./engine.js";
import { loadPolicyEngine } from "./default-engine.js";
import { PolicyLoadError } from "./opa-wasm-engine.js";
import type { CustomBuiltins } from "./builtins/index.js";
import type { OpaWasmEngineOptions } from "./opa-wasm-engine.js";

export interface PolicyFileOptions {
  /** Entrypoint as a rule path with slashes, e.g. "toolgate/authz/decision". */
  readonly entrypoint: string;
  /** Data for a bare policy.wasm (a bundle carries its own /data.json). */
  readonly data?: JsonObject;
  /** How to turn the bytes into an engine. Default: the default engine (default-engine.ts). */
  readonly load?: (opts: OpaWasmEngineOptions) => Promise<PolicyEngine>;
  /** Custom builtins the policy was compiled with, passed on to `load`. */
  readonly builtins?: CustomBuiltins;
}

const isGzip = (b: Uint8Array): boolean => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;

/** The files of a gzipped tar, by path without the leading slash. */
export function readBundleFiles(bytes: Uint8Array, file: string): Map<string, Uint8Array> {
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes);
  } catch (err) {
    throw new PolicyLoadError(`${file}: not a gzip bundle (${err instanceof Error ? err.message : String(err)})`);
  }
  const files = new Map<string, Uint8Array>();
  for (let off = 0; off + 512 <= tar.length; ) {
    if (tar.subarray(off, off + 512).every((b) => b === 0)) break;
    const h = new Header(tar, off);
    const size = h.size ?? 0;
    if (h.cksumValid !== true || off + 512 + size > tar.length) throw new PolicyLoadError(`${file}: corrupt tar entry at byte ${off}`);
    if (h.type === "File" && h.path !== undefined) files.set(h.path.replace(/^\.?\//, ""), tar.subarray(off + 512, off + 512 + size));
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

export async function loadPolicyFile(path: string, opts: PolicyFileOptions): Promise<PolicyEngine> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch (err) {
    throw new PolicyLoadError(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const loadEngine = opts.load ?? loadPolicyEngine;
  const load = (o: OpaWasmEngineOptions) => loadEngine(opts.builtins === undefined ? o : { ...o, builtins: opts.builtins });
  if (!isGzip(bytes)) {
    return load(opts.data === undefined ? { wasm: bytes, entrypoint: opts.entrypoint } : { wasm: bytes, entrypoint: opts.entrypoint, data: opts.data });
  }
  const files = readBundleFiles(bytes, path);
  const wasm = files.get("policy.wasm");
  if (wasm === undefined) throw new PolicyLoadError(`${path}: the bundle has no /policy.wasm`);
  const dataBytes = files.get("data.json");
  let data: JsonObject | undefined = opts.data;
  if (dataBytes !== undefined) {
    try {
      data = JSON.parse(new TextDecoder().decode(dataBytes)) as JsonObject;
    } catch (err) {
      throw new PolicyLoadError(`${path}: /data.json is not JSON (${err instanceof Error ? err.message : String(err)})`);
    }
  }
  return load(data === undefined ? { wasm, entrypoint: opts.entrypoint } : { wasm, entrypoint: opts.entrypoint, data });
}
