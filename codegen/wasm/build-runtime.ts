/**
 * Builds codegen/wasm/runtime.wasm from the AssemblyScript sources in
 * codegen/wasm/assembly (`npm run build:runtime`), or with `--check` fails when the
 * checked-in binary differs from a fresh build (`npm run check:runtime`).
 * The flags are pinned here; the output has no name section and no timestamps, so
 * the same sources and asc version give the same bytes.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const RUNTIME_WASM_PATH = join(ROOT, "codegen", "wasm", "runtime.wasm");
const ENTRY = "codegen/wasm/assembly/index.ts";

/** Pinned compiler flags (RUNTIME-API.md explains the memory and runtime choices). */
export const ASC_FLAGS: readonly string[] = [
  "--runtime", "stub", // no GC; the library only uses raw memory
  "--importMemory", // env.memory from the SDK
  "--noExportMemory",
  "--initialMemory", "2", // the SDK provides 5 pages; keep the declared minimum below that
  "--optimizeLevel", "3",
  "--shrinkLevel", "0",
  "--noAssert",
  "--use", "abort=codegen/wasm/assembly/errors/asAbort", // no env.abort import
  "--disable", "simd",
];

export async function buildRuntime(): Promise<Uint8Array> {
  // The CLI in a child process: loading asc through tsx transpiles it first and is slower.
  const dir = await mkdtemp(join(tmpdir(), "toolgate-runtime-"));
  try {
    const out = join(dir, "runtime.wasm");
    const asc = join(ROOT, "node_modules", "assemblyscript", "bin", "asc.js");
    await run(process.execPath, [asc, ENTRY, ...ASC_FLAGS, "--outFile", out]);
    return new Uint8Array(await readFile(out));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function run(cmd: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd: ROOT, maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`asc failed:\n${stdout}${stderr}`));
      else resolve();
    });
  });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

async function main(argv: readonly string[]): Promise<number> {
  const fresh = await buildRuntime();
  const rel = relative(ROOT, RUNTIME_WASM_PATH);
  if (argv.includes("--check")) {
    let current: Uint8Array;
    try {
      current = new Uint8Array(await readFile(RUNTIME_WASM_PATH));
    } catch {
      console.error(`${rel}: missing; run npm run build:runtime`);
      return 1;
    }
    if (!sameBytes(current, fresh)) {
      console.error(`${rel}: stale (does not match codegen/wasm/assembly); run npm run build:runtime`);
      return 1;
    }
    console.log(`${rel}: up to date (${fresh.length} bytes)`);
    return 0;
  }
  await writeFile(RUNTIME_WASM_PATH, fresh);
  console.log(`${rel}: ${fresh.length} bytes`);
  return 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
