/**
 * The toolgate CLI run in this process: the CLI's `main` with its output captured, the working
 * directory and environment set for the run, and a thrown error reported as the executable
 * reports it. No process start and no second module load, so use it unless the test needs a
 * real process (then `runCliProcess` in cli-process.ts).
 */
import { formatWithOptions } from "node:util";
import { reportFatal } from "../../src/cli/fatal.js";
import { main } from "../../src/cli/main.js";

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  /** The working directory of the run (default: this process's; a child process: the repository root). */
  readonly cwd?: string;
  /** Variables set (a string) or removed (undefined) for the run, over this process's environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

// One in-process run at a time: each one owns the console, the working directory and the environment.
let queue: Promise<unknown> = Promise.resolve();

/** Runs `toolgate ...args` in this process; its exit code and output (never throws for a failing command). */
export function runCli(args: readonly string[], opts: CliOptions = {}): Promise<CliRun> {
  const run = queue.then(() => runInProcess(args, opts));
  queue = run.catch(() => undefined);
  return run;
}

type Write = typeof process.stdout.write;

function capture(into: string[]): Write {
  return ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    done?.();
    return true;
  }) as Write;
}

async function runInProcess(args: readonly string[], opts: CliOptions): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const line = (into: string[]) => (...a: unknown[]) => void into.push(`${formatWithOptions({ colors: false }, ...a)}\n`);
  const saved = { log: console.log, info: console.info, debug: console.debug, warn: console.warn, error: console.error };
  const writes = { out: process.stdout.write, err: process.stderr.write };
  const cwd = process.cwd();
  const env = Object.entries(opts.env ?? {}).map(([k, v]) => [k, process.env[k], v] as const);
  console.log = console.info = console.debug = line(out);
  console.warn = console.error = line(err);
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  let code: number;
  try {
    if (opts.cwd !== undefined) process.chdir(opts.cwd);
    for (const [k, , v] of env) setEnv(k, v);
    code = await main(args);
  } catch (e) {
    const report = reportFatal(e);
    err.push(`${report.message}\n`);
    code = report.exitCode;
  } finally {
    for (const [k, before] of env) setEnv(k, before);
    process.chdir(cwd);
    Object.assign(console, saved);
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
  }
  return { code, stdout: out.join(""), stderr: err.join("") };
}

function setEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
