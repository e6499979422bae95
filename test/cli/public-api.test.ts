/**
 * The root entry exports a designed public API: exactly the values README's "Public API"
 * table lists for `toolgate`; the building blocks other entries share are in
 * `toolgate/internal`, not in the root.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as internal from "../../src/internal.js";
import * as root from "../../src/index.js";
import { repoRoot } from "../helpers/repo.js";

/** The names in the values column of README's Public API row for `entry`. */
function documentedValues(entry: string): string[] {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("\n## Public API\n"));
  const row = section.split("\n").find((line) => line.startsWith(`| \`${entry}\` |`));
  if (row === undefined) throw new Error(`README.md has no Public API row for ${entry}`);
  const values = row.split(" | ")[1] ?? "";
  return [...values.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string).sort();
}

describe("the public API", () => {
  it("the root entry exports exactly the values README's Public API table lists for toolgate", () => {
    expect(Object.keys(root).sort()).toEqual(documentedValues("toolgate"));
  });

  it("internals (claim planning, the decision batcher, the fast engine's class, the budget check) are not in the root entry", () => {
    for (const name of ["planClaim", "planRecord", "DecisionBatch", "FastPolicy", "checkPolicyBudget", "BUDGET_EXCEEDED", "decisionEntry", "readPolicyFiles"]) {
      expect(Object.keys(root), name).not.toContain(name);
      expect(Object.keys(internal), name).toContain(name);
    }
  });

  it("the root entry opens PostgreSQL only through openStore / openStoreFromEnv; the PostgreSQL store itself is toolgate/postgres", async () => {
    expect(Object.keys(root)).not.toContain("openPgStore");
    const postgres = await import("../../src/store/postgres/index.js");
    expect(typeof postgres.openPgStore).toBe("function");
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { exports: Record<string, { default: string }> };
    expect(pkg.exports["./postgres"]?.default).toBe("./dist/src/store/postgres/index.js");
  });
});
