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

/** The closest command name by edit distance, when it is close enough to be a typo. */
export function suggestCommand(name: string, commands: readonly CommandSpec[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of commands) {
    const d = editDistance(name, c.name);
    if (d < bestDistance) {
      best = c.name;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : null;
}

/** Levenshtein distance. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length] as number;
}
