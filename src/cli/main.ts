import { Command, CommanderError } from "commander";
import { commands } from "./commands/index.js";
import { formatHelp, suggestCommand } from "./help.js";
import { toolgateVersion } from "../version.js";

const description = "Declarative, compiled policy for the tools AI agents call";

/** Runs the CLI and returns the process exit code (0 ok, 1 user-facing failure, 2 usage error). */
export async function main(argv: readonly string[]): Promise<number> {
  let args = [...argv];
  const [first] = args;
  if (first === undefined || first === "-h" || first === "--help" || (first === "help" && args.length === 1)) {
    process.stdout.write(formatHelp(commands, description));
    return 0;
  }
  if (first === "-V" || first === "--version") {
    console.log(toolgateVersion);
    return 0;
  }
  if (first === "help") args = [args[1] as string, "--help"];
  const name = args[0] as string;
  const spec = commands.find((c) => c.name === name);
  if (spec === undefined) {
    const kind = name.startsWith("-") ? "option" : "command";
    const close = kind === "command" ? suggestCommand(name, commands) : null;
    console.error(`error: unknown ${kind} '${name}'${close === null ? "" : `\n(Did you mean ${close}?)`}\n`);
    console.error(formatHelp(commands, description).trimEnd());
    return 2;
  }

  const program = new Command("toolgate").description(description).version(toolgateVersion).exitOverride().showHelpAfterError();
  // commander's usage errors and help go through console, like every other line the CLI prints,
  // so a host (or a test) that captures console captures them too. Set before any subcommand is
  // added: subcommands copy it.
  program.configureOutput({
    writeOut: (text) => console.log(text.replace(/\n$/, "")),
    writeErr: (text) => console.error(text.replace(/\n$/, "")),
  });
  let exitCode = 0;
  const setExitCode = (code: number): void => {
    exitCode = Math.max(exitCode, code);
  };
  (await spec.load())(program, setExitCode);
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help surfaces as an "error" with exit code 0.
      return err.exitCode === 0 ? 0 : 2;
    }
    throw err;
  }
  return exitCode;
}
