import type { Command } from "commander";

/** Registers one CLI command; `setExitCode` raises the exit code the process ends with. */
export type RegisterCommand = (program: Command, setExitCode: (code: number) => void) => void;

/**
 * Every CLI command, in the order `toolgate --help` lists them. Loaded lazily: the
 * compiler pulls in binaryen, which takes seconds to start, and `codegen` should not pay for it.
 */
export const commandLoaders: Readonly<Record<string, () => Promise<RegisterCommand>>> = {
  codegen: async () => (await import("./codegen.js")).registerCodegen,
  check: async () => (await import("./check.js")).registerCheck,
  build: async () => (await import("./build.js")).registerBuild,
  eval: async () => (await import("./eval.js")).registerEval,
  test: async () => (await import("./test.js")).registerTest,
  fmt: async () => (await import("./fmt.js")).registerFmt,
  migrate: async () => (await import("./migrate.js")).registerMigrate,
  demo: async () => (await import("./demo.js")).registerDemo,
  mcp: async () => (await import("./mcp.js")).registerMcp,
  "agent-eval": async () => (await import("./agent-eval.js")).registerAgentEval,
};
