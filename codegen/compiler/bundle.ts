/**
 * OPA-style bundle bytes: a gzipped tar with `/policy.wasm`, `/data.json` and
 * `/.manifest`. Byte-deterministic: entries in a fixed sorted order, mtime 0,
 * no owner names, gzip header without a timestamp.
 */
import { gzipSync } from "node:zlib";
import { Header } from "tar";

export interface BundleInput {
  readonly wasm: Uint8Array;
  readonly data: unknown;
  readonly entrypoints: readonly string[];
  /** The Rego version the policy was compiled as; the manifest's `rego_version` (OPA: 0, 1 or 2). */
  readonly regoVersion?: "v0" | "v1" | "v2";
}

export function bundleBytes(b: BundleInput): Uint8Array {
  const manifest = {
    revision: "",
    roots: [""],
    wasm: b.entrypoints.map((entrypoint) => ({ entrypoint, module: "/policy.wasm" })),
    rego_version: b.regoVersion === "v0" ? 0 : b.regoVersion === "v2" ? 2 : 1,
  };
  const files: [string, Uint8Array][] = [
    ["/.manifest", utf8(`${JSON.stringify(manifest, null, 2)}\n`)],
    ["/data.json", utf8(`${stableJson(b.data)}\n`)],
    ["/policy.wasm", b.wasm],
  ];
  files.sort(([a], [c]) => (a < c ? -1 : a > c ? 1 : 0));
  const parts: Uint8Array[] = [];
  for (const [path, data] of files) {
    const block = Buffer.alloc(512);
    new Header({ path, mode: 0o644, uid: 0, gid: 0, size: data.byteLength, mtime: new Date(0), type: "File", uname: "", gname: "" }).encode(block, 0);
    parts.push(block, data, new Uint8Array((512 - (data.byteLength % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  // Node's gzip header carries mtime 0, so equal input gives equal bytes.
  return new Uint8Array(gzipSync(Buffer.concat(parts), { level: 9 }));
}

function utf8(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

/** JSON with object keys sorted, two-space indented: stable across runs. */
export function stableJson(v: unknown): string {
  const sort = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sort);
    if (x !== null && typeof x === "object") {
      return Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort((x as Record<string, unknown>)[k])]));
    }
    return x;
  };
  return JSON.stringify(sort(v), null, 2);
}
