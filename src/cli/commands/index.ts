import type { Command } from "commander";
import { loadBuildCommand } from "./build-package.js";

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
  /** "build": the command needs the compiler or codegen and ships in the build package (@toolgate/build). */
  readonly role: "runtime" | "build";
}

/**
 * Every CLI command, in the order `toolgate --help` lists them; adding a command is one
 * row here. The runtime package runs the "runtime" commands; the "build" ones load from
 * the build package when the runtime package is installed without them. Modules load on use: the compiler pulls in binaryen, which takes seconds to
 * start, and help, `codegen` or `migrate` should not pay for it.
 */
export const commands: readonly CommandSpec[] = [
  { name: "init", usage: "[dir]", summary: "create a starter project (tools.yaml, policies, handlers, main.ts)", role: "build", load: () => loadBuildCommand("init", "init", "registerInit", () => import("./init.js")) },
  { name: "codegen", usage: "[options]", summary: "generate typed TypeScript from tools.yaml", role: "build", load: () => loadBuildCommand("codegen", "codegen", "registerCodegen", () => import("./codegen.js")) },
  { name: "check", usage: "[paths...]", summary: "parse and check Rego policies without building", role: "build", load: () => loadBuildCommand("check", "check", "registerCheck", () => import("./check.js")) },
  { name: "build", usage: "[options]", summary: "compile the policies to policy.wasm and bundle.tar.gz", role: "build", load: () => loadBuildCommand("build", "build", "registerBuild", () => import("./build.js")) },
  { name: "eval", usage: "[options] <query>", summary: "evaluate a Rego query (JSON like `opa eval`)", role: "build", load: () => loadBuildCommand("eval", "eval", "registerEval", () => import("./eval.js")) },
  { name: "test", usage: "[paths...]", summary: "run the test_* rules of *_test.rego files", role: "build", load: () => loadBuildCommand("test", "test", "registerTest", () => import("./test.js")) },
  { name: "fmt", usage: "[paths...]", summary: "format Rego files in canonical style", role: "build", load: () => loadBuildCommand("fmt", "fmt", "registerFmt", () => import("./fmt.js")) },
  { name: "migrate", usage: "[options]", summary: "apply the PostgreSQL store migrations", role: "runtime", load: async () => (await import("./migrate.js")).registerMigrate },
  { name: "demo", usage: "[options]", summary: "run the example escrow tools through the gate", role: "build", load: () => loadBuildCommand("demo", "demo", "registerDemo", () => import("./demo.js")) },
  { name: "approvals", usage: "<command>", summary: "list, show and decide approvals (approve, reject, edit, revoke)", role: "runtime", load: async () => (await import("./approvals.js")).registerApprovals },
  { name: "serve", usage: "[options]", summary: "serve the approvals inbox and JSON API", role: "runtime", load: async () => (await import("./serve.js")).registerServe },
  { name: "token", usage: "[options]", summary: "issue an approver token for toolgate serve", role: "runtime", load: async () => (await import("./token.js")).registerToken },
  { name: "mcp", usage: "[options]", summary: "serve the gated tools as an MCP server (stdio or HTTP)", role: "runtime", load: async () => (await import("./mcp.js")).registerMcp },
  { name: "agent-eval", usage: "[options]", summary: "run agents through scenario suites against the gate and score them", role: "runtime", load: async () => (await import("./agent-eval.js")).registerAgentEval },
  { name: "log", usage: "[options]", summary: "list logged decisions, newest first", role: "runtime", load: async () => (await import("./log.js")).registerLog },
  { name: "explain", usage: "[options]", summary: "re-evaluate a logged decision and show every rule's value", role: "build", load: () => loadBuildCommand("explain", "explain", "registerExplain", () => import("./explain.js")) },
  { name: "replay", usage: "[options]", summary: "re-evaluate logged decisions under a candidate policy", role: "build", load: () => loadBuildCommand("replay", "replay", "registerReplay", () => import("./replay.js")) },
];
