import type { Command } from "commander";
import { registerDemo } from "./demo.js";
import { registerCheck } from "./check.js";
import { registerCodegen } from "./codegen.js";
import { registerMigrate } from "./migrate.js";
import { registerFmt } from "./fmt.js";
import { registerTest } from "./test.js";
import { registerBuild } from "./build.js";
import { registerEval } from "./eval.js";

/** Registers one CLI command; `setExitCode` raises the exit code the process ends with. */
export type RegisterCommand = (program: Command, setExitCode: (code: number) => void) => void;

/** Every CLI command, in the order `toolgate --help` lists them. */
export const commands: readonly RegisterCommand[] = [
  registerCodegen,
  registerCheck,
  registerBuild,
  registerEval,
  registerMigrate,
  registerFmt,
  registerTest,
  registerDemo,
];
