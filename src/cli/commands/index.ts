import type { Command } from "commander";
import { registerDemo } from "./demo.js";
import { registerCheck } from "./check.js";
import { registerCodegen } from "./codegen.js";
import { registerMigrate } from "./migrate.js";
import { registerFmt } from "./fmt.js";
import { registerTest } from "./test.js";

/** Registers one CLI command; `setExitCode` raises the exit code the process ends with. */
export type RegisterCommand = (program: Command, setExitCode: (code: number) => void) => void;

/** Every CLI command, in the order `toolgate --help` lists them. */
export const commands: readonly RegisterCommand[] = [
  registerCodegen,
  registerCheck,
  registerMigrate,
  registerFmt,
  registerTest,
  registerDemo,
];
