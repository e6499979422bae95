/**
 * Runs the toolgate CLI in a child process the way a user runs `npx toolgate`: through
 * bin/toolgate.js, which in a checkout runs the TypeScript sources (never a stale dist/).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const cliBin = join(repoRoot, "bin", "toolgate.js");
const traceHook = join(repoRoot, "test", "helpers", "trace-loads.mjs");

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Arguments for node itself, before the script. */
  readonly nodeArgs?: readonly string[];
}

/** Runs `toolgate ...args` and returns its exit code and output (never throws on a non-zero exit). */
export function runCli(args: readonly string[], opts: CliOptions = {}): CliRun {
  return runNode([...(opts.nodeArgs ?? []), cliBin, ...args], opts);
}

function runNode(args: readonly string[], opts: CliOptions): CliRun {
  const r = spawnSync(process.execPath, args, {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, ...opts.env },
    encoding: "utf8",
  });
  if (r.error !== undefined) throw r.error;
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/** Runs node with a module-load trace and returns the run plus every module URL it loaded. */
export function traceLoads(args: readonly string[], opts: CliOptions = {}): CliRun & { readonly loaded: readonly string[] } {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-trace-"));
  const file = join(dir, "loaded.txt");
  try {
    const run = runNode(["--import", traceHook, ...args], { ...opts, env: { ...opts.env, TOOLGATE_TRACE_LOADS: file } });
    let loaded: string[] = [];
    try {
      loaded = readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
    } catch {
      // No module loaded after the hook: an empty trace.
    }
    return { ...run, loaded };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
