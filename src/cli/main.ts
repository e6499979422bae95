import { Command, CommanderError } from "commander";
import { commandLoaders } from "./commands/index.js";
import { toolgateVersion } from "../version.js";

/** Runs the CLI and returns the process exit code (0 ok, 1 user-facing failure, 2 usage error). */
export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command("toolgate")
    .description("Declarative, compiled policy for the tools AI agents call")
    .version(toolgateVersion)
    .exitOverride()
    .showHelpAfterError();
  let exitCode = 0;
  const setExitCode = (code: number): void => {
    exitCode = Math.max(exitCode, code);
  };
  // Load only the command being run; help and unknown commands load them all.
  const named = argv.find((a) => !a.startsWith("-"));
  const loaders = named !== undefined && named in commandLoaders ? [commandLoaders[named]] : Object.values(commandLoaders);
  for (const load of loaders) if (load) (await load())(program, setExitCode);
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version surface as "errors" with exit code 0.
      return err.exitCode === 0 ? 0 : 2;
    }
    throw err;
  }
  return exitCode;
}
