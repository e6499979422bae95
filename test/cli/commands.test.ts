/** The command table is what `--help` prints: every row loads a module registering that command. */
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { commands } from "../../src/cli/commands/index.js";
import { suggestCommand } from "../../src/cli/help.js";
import { editDistance } from "../../codegen/suggest.js";
import { runCli } from "../helpers/cli.js";

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
    const command = await runCli(["codgen"]);
    const option = await runCli(["--bogus"]);
    expect([command.code, option.code]).toEqual([2, 2]);
    expect(command.stderr).toContain("unknown command 'codgen'");
    expect(command.stderr).toContain("Did you mean codegen?");
    expect(option.stderr).toContain("unknown option '--bogus'");
  });

  it("suggests only close names", () => {
    expect(suggestCommand("buld", commands)).toBe("build");
    expect(suggestCommand("frobnicate", commands)).toBe(null);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});
