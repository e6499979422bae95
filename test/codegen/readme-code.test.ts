/**
 * The TypeScript examples in the READMEs compile as a project that installed toolgate would
 * compile them: every ```ts block that imports `toolgate` (any public entry) is type-checked on
 * its own, with only the package's public entries resolvable and `./generated/` as generated here.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/repo.js";
import { typecheckFiles } from "../helpers/typecheck.js";

interface Block {
  readonly readme: string;
  readonly line: number;
  readonly code: string;
}

const importsToolgate = /from\s+"toolgate(\/[a-z/-]+)?"/;

/** Every ```ts block of the tracked READMEs that imports a toolgate entry, with the line it starts on. */
function readmeBlocks(): Block[] {
  const readmes = execFileSync("git", ["ls-files", "README.md", "**/README.md"], { cwd: repoRoot, encoding: "utf8" }).split("\n").filter((f) => f !== "");
  const blocks: Block[] = [];
  for (const readme of readmes) {
    const text = readFileSync(join(repoRoot, readme), "utf8");
    for (const m of text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```$/gm)) {
      const code = m[1] as string;
      if (!importsToolgate.test(code)) continue;
      blocks.push({ readme, line: text.slice(0, m.index).split("\n").length + 1, code });
    }
  }
  return blocks;
}

describe("README code", () => {
  const blocks = readmeBlocks();

  it("finds the README examples that import toolgate (the root README's run-time example among them)", () => {
    expect(blocks.map((b) => b.readme)).toEqual(expect.arrayContaining(["README.md", "src/store/postgres/README.md"]));
    expect(blocks.some((b) => b.code.includes("createGate(runtime)"))).toBe(true);
  });

  it("every README TypeScript block that imports toolgate compiles with the public entries only", () => {
    const files = Object.fromEntries(blocks.map((b, i) => [`block-${i}.ts`, `${b.code}\nexport {};\n`]));
    const problems = typecheckFiles(files).map((p) => {
      const block = blocks[Number(/block-(\d+)/.exec(p.file)?.[1])] as Block;
      return `${block.readme}:${block.line + p.line - 1} TS${p.code}: ${p.message}`;
    });
    expect(problems).toEqual([]);
  }, 120_000);

  it("a deep import into the package's sources does not compile (only the exports resolve)", () => {
    const problems = typecheckFiles({ "deep.ts": 'import { openPgStore } from "toolgate/src/store/postgres/index.js";\nvoid openPgStore;\n' });
    expect(problems.map((p) => p.code)).toEqual([2307]);
  }, 120_000);
});
