/**
 * A `toolgate init` starter type-checks with each adapter and its framework installed: the
 * starter's tsconfig (strict, skipLibCheck false) run over the frameworks' own declarations
 * and the adapters, from this repository's install.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { repoRoot } from "../helpers/repo.js";

const work = mkdtempSync(join(tmpdir(), "toolgate-starter-types-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the starter's types", () => {
  it("a toolgate init starter type-checks the adapters with ai, @openai/agents, langchain and @langchain/langgraph installed", async () => {
    const dir = join(work, "starter");
    expect((await runCli(["init", dir])).code).toBe(0);
    symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"));
    mkdirSync(join(dir, "check"));
    const src = (entry: string) => JSON.stringify(join(repoRoot, "src/adapters", entry));
    writeFileSync(
      join(dir, "check/frameworks.ts"),
      [
        `import { generateText } from "ai";`,
        `import { Agent, run, RunState } from "@openai/agents";`,
        `import { createAgent, humanInTheLoopMiddleware } from "langchain";`,
        `import { Command, interrupt } from "@langchain/langgraph";`,
        `import { createAiSdkTools } from ${src("ai-sdk.js")};`,
        `import { createOpenAiAgentsTools } from ${src("openai-agents.js")};`,
        `import { createLangChainTools } from ${src("langchain.js")};`,
        `export const used = [generateText, Agent, run, RunState, createAgent, humanInTheLoopMiddleware, Command, interrupt, createAiSdkTools, createOpenAiAgentsTools, createLangChainTools];`,
        "",
      ].join("\n"),
    );
    // The starter's own compiler options; only the files differ (generated/ does not exist before codegen).
    writeFileSync(join(dir, "tsconfig.check.json"), JSON.stringify({ extends: "./tsconfig.json", compilerOptions: { noEmit: true, allowJs: false, rootDir: "/" }, include: ["check"] }));
    const tsc = spawnSync(process.execPath, [join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.check.json"], { cwd: dir, encoding: "utf8" });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  }, 180_000);
});
