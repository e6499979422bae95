import { closestName } from "../../codegen/suggest.js";
import type { CommandSpec } from "./commands/index.js";

/** `toolgate --help`, from the command table alone (no command module is loaded). */
export function formatHelp(commands: readonly CommandSpec[], description: string): string {
  const rows = commands.map((c) => [`${c.name} ${c.usage}`.trim(), c.summary] as const);
  const width = Math.max(...rows.map(([left]) => left.length), "-V, --version".length) + 2;
  const line = (left: string, right: string): string => `  ${left.padEnd(width)}${right}`;
  return [
    "Usage: toolgate [options] [command]",
    "",
    description,
    "",
    "Options:",
    line("-V, --version", "output the version number"),
    line("-h, --help", "display help for command"),
    "",
    "Commands:",
    ...rows.map(([left, right]) => line(left, right)),
    line("help [command]", "display help for command"),
    "",
    "Run `toolgate <command> --help` for a command's options.",
    "",
  ].join("\n");
}

/** The closest command name, when it is close enough to be a typo. */
export function suggestCommand(name: string, commands: readonly CommandSpec[]): string | null {
  return closestName(name, commands.map((c) => c.name));
}
