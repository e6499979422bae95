import type { Command } from "commander";

/** Registers one CLI command; `setExitCode` raises the exit code the process ends with. */
export type RegisterCommand = (program: Command, setExitCode: (code: number) => void) => void;

/** One row of the command table: enough to print `toolgate --help` without loading anything. */
export interface CommandSpec {
  readonly name: string;
  /** `[args]` shown after the name in the overview, e.g. `[paths...]`. */
  readonly usage: string;
  readonly summary: string;
  /** Loads the module that declares the command's options and action; only the command being run is loaded. */
  readonly load: () => Promise<RegisterCommand>;
}

/**
 * Every CLI command, in the order `toolgate --help` lists them; adding a command is one
 * row here. Modules load on use: the compiler pulls in binaryen, which takes seconds to
 * start, and help, `codegen` or `migrate` should not pay for it.
 */
export const commands: readonly CommandSpec[] = [
  { name: "init", usage: "[dir]", summary: "create a starter project (tools.yaml, policies, handlers, main.ts)", load: async () => (await import("./init.js")).registerInit },
  { name: "codegen", usage: "[options]", summary: "generate typed TypeScript from tools.yaml", load: async () => (await import("./codegen.js")).registerCodegen },
  { name: "check", usage: "[paths...]", summary: "parse and check Rego policies without building", load: async () => (await import("./check.js")).registerCheck },
  { name: "build", usage: "[options]", summary: "compile the policies to policy.wasm and bundle.tar.gz", load: async () => (await import("./build.js")).registerBuild },
  { name: "eval", usage: "[options] <query>", summary: "evaluate a Rego query (JSON like `opa eval`)", load: async () => (await import("./eval.js")).registerEval },
  { name: "test", usage: "[paths...]", summary: "run the test_* rules of *_test.rego files", load: async () => (await import("./test.js")).registerTest },
  { name: "fmt", usage: "[paths...]", summary: "format Rego files in canonical style", load: async () => (await import("./fmt.js")).registerFmt },
  { name: "migrate", usage: "[options]", summary: "apply the PostgreSQL store migrations", load: async () => (await import("./migrate.js")).registerMigrate },
  { name: "demo", usage: "[options]", summary: "run the example escrow tools through the gate", load: async () => (await import("./demo.js")).registerDemo },
  { name: "approvals", usage: "<command>", summary: "list, show and decide approvals (approve, reject, edit, revoke)", load: async () => (await import("./approvals.js")).registerApprovals },
  { name: "serve", usage: "[options]", summary: "serve the approvals inbox and JSON API", load: async () => (await import("./serve.js")).registerServe },
  { name: "token", usage: "[options]", summary: "issue an approver token for toolgate serve", load: async () => (await import("./token.js")).registerToken },
  { name: "mcp", usage: "[options]", summary: "serve the gated tools as an MCP server (stdio or HTTP)", load: async () => (await import("./mcp.js")).registerMcp },
  { name: "agent-eval", usage: "[options]", summary: "run agents through scenario suites against the gate and score them", load: async () => (await import("./agent-eval.js")).registerAgentEval },
  { name: "log", usage: "[options]", summary: "list logged decisions, newest first", load: async () => (await import("./log.js")).registerLog },
  { name: "explain", usage: "[options]", summary: "re-evaluate a logged decision and show every rule's value", load: async () => (await import("./explain.js")).registerExplain },
  { name: "replay", usage: "[options]", summary: "re-evaluate logged decisions under a candidate policy", load: async () => (await import("./replay.js")).registerReplay },
];
