/** The command table is what `--help` prints: every row loads a module registering that command. */
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { commands } from "../../src/cli/commands/index.js";
import { main } from "../../src/cli/main.js";
import { suggestCommand } from "../../src/cli/help.js";
import { editDistance } from "../../codegen/suggest.js";

describe("the command table", () => {
  it.each(commands.map((c) => [c.name, c] as const))("%s loads a module that registers exactly that command", async (name, spec) => {
    const program = new Command("toolgate");
    (await spec.load())(program, () => undefined);
    expect(program.commands.map((c) => c.name())).toEqual([name]);
    expect(program.commands[0]?.description().length).toBeGreaterThan(0);
  });

  it("names are unique", () => {
    expect(new Set(commands.map((c) => c.name)).size).toBe(commands.length);
  });
});

describe("main", () => {
  it("an unknown command is a usage error with a suggestion", async () => {
    const err: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const log = console.error;
    process.stderr.write = ((s: string) => (err.push(String(s)), true)) as typeof process.stderr.write;
    console.error = (...a: unknown[]) => void err.push(a.join(" "));
    try {
      expect(await main(["codgen"])).toBe(2);
      expect(await main(["--bogus"])).toBe(2);
    } finally {
      process.stderr.write = write;
      console.error = log;
    }
    expect(err.join("")).toContain("unknown command 'codgen'");
    expect(err.join("")).toContain("Did you mean codegen?");
    expect(err.join("")).toContain("unknown option '--bogus'");
  });

  it("suggests only close names", () => {
    expect(suggestCommand("buld", commands)).toBe("build");
    expect(suggestCommand("frobnicate", commands)).toBe(null);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});
