/**
 * The toolgate CLI in a child process, the way a user runs `npx toolgate`: through
 * bin/toolgate.js, which in a checkout runs the TypeScript sources (never a stale dist/).
 * For what needs a real process: servers, stdio, signals, exit-time flushing, module loading.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliOptions, CliRun } from "./cli.js";
import { cliBin, repoRoot } from "./repo.js";

export type { CliRun };

const traceHook = join(repoRoot, "test", "helpers", "trace-loads.mjs");

export interface CliProcessOptions extends CliOptions {
  /** Arguments for node itself, before the script. */
  readonly nodeArgs?: readonly string[];
  /** Written to the child's stdin, which is then closed. */
  readonly input?: string;
  /** Kills the child (SIGKILL) after this long; the run then fails. */
  readonly timeoutMs?: number;
  /** false: the child's environment is only PATH plus `env`, none of this process's variables. */
  readonly inheritEnv?: boolean;
  /** The child's stdin, stdout, stderr (default: all piped). An unread piped stdout can fill and stall the child. */
  readonly stdio?: readonly ["pipe" | "ignore", "pipe" | "ignore", "pipe" | "ignore"];
}

/** Starts `toolgate ...args` in a child process (stdio piped) for a test that talks to it or signals it. */
export function startCliProcess(args: readonly string[], opts: CliProcessOptions = {}): ChildProcess {
  return startNode([...(opts.nodeArgs ?? []), cliBin, ...args], opts);
}

/** Runs `toolgate ...args` in a child process to its end; its exit code and output (never throws for a non-zero exit). */
export function runCliProcess(args: readonly string[], opts: CliProcessOptions = {}): Promise<CliRun> {
  return runNode([...(opts.nodeArgs ?? []), cliBin, ...args], opts);
}

function startNode(args: readonly string[], opts: CliProcessOptions): ChildProcess {
  const env: NodeJS.ProcessEnv = opts.inheritEnv === false ? { PATH: process.env["PATH"] ?? "" } : { ...process.env };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return spawn(process.execPath, args, { cwd: opts.cwd ?? repoRoot, env, stdio: [...(opts.stdio ?? ["pipe", "pipe", "pipe"])] });
}

function runNode(args: readonly string[], opts: CliProcessOptions): Promise<CliRun> {
  const child = startNode(args, opts);
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => void (stdout += d));
  child.stderr?.setEncoding("utf8").on("data", (d: string) => void (stderr += d));
  child.stdin?.end(opts.input ?? "");
  return new Promise((done, fail) => {
    const timer = opts.timeoutMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs);
    child.once("error", fail);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (signal !== null && code === null) fail(new Error(`node ${args.join(" ")} ended by ${signal}\n${stderr}`));
      else done({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** Runs node with a module-load trace and returns the run plus every module URL it loaded. */
export async function traceLoads(args: readonly string[], opts: CliProcessOptions = {}): Promise<CliRun & { readonly loaded: readonly string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-trace-"));
  const file = join(dir, "loaded.txt");
  try {
    const run = await runNode(["--import", traceHook, ...args], { ...opts, env: { ...opts.env, TOOLGATE_TRACE_LOADS: file } });
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
