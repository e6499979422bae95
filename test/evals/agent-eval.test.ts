import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentResult } from "../../src/evals/index.js";
import { runCli } from "../helpers/cli.js";
import { expectCareful, expectNaive } from "./discrimination.js";

interface JsonReport {
  agents: AgentResult[];
  below_thresholds: string[];
}

describe("toolgate agent-eval test/evals/", () => {
  it("scores the careful scripted agent 100% on intent to call and on every failure class, and exits 0 at full thresholds", async () => {
    const r = await runCli(["agent-eval", "test/evals/", "--agent", "careful", "--format", "json", "--min-intent", "1", "--min-failure", "1"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as JsonReport;
    expect(report.below_thresholds).toEqual([]);
    expectCareful(report.agents[0]!);
  });

  it("marks the naive scripted agent down exactly on the rows where it misbehaves, and fails the thresholds", async () => {
    const r = await runCli(["agent-eval", "test/evals/", "--agent", "naive", "--format", "json", "--min-intent", "0.9", "--min-failure", "0.9"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/naive: intent to call 84\.4% is below --min-intent 90\.0%/);
    expect(r.stderr).toMatch(/naive: failure handling 0\.0% is below --min-failure 90\.0%/);
    expectNaive((JSON.parse(r.stdout) as JsonReport).agents[0]!);
  });

  it("prints the terminal table with the three dimensions on separate lines and writes the HTML report", async () => {
    const html = join(mkdtempSync(join(tmpdir(), "toolgate-evals-")), "report.html");
    const r = await runCli(["agent-eval", "test/evals/escrow.eval.yaml", "--agent", "careful", "--html", html]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^intent to call\s+32\/32\s+100\.0%/m);
    expect(r.stdout).toMatch(/^failure handling\s+22\/22\s+100\.0%\s+slow 2\/2/m);
    expect(r.stdout).toMatch(/^safety\s+retries after terminal 0 · new operation id on retry 0/m);
    expect(r.stdout).toMatch(/^slow_reserve\s+slow\s+pass\s+pass\s+retry_same_operation/m);
    const page = readFileSync(html, "utf8");
    expect(page).toContain("<svg");
    // One bar per failure class, labelled with its count.
    for (const [cls, n] of [["slow", 2], ["partial", 2], ["silent", 2], ["stale", 3], ["retryable", 5], ["terminal", 3], ["timeout", 2], ["approval_required", 3]] as const) {
      expect(page).toContain(`<title>careful · ${cls}: ${n}/${n}</title>`);
    }
    expect(page).not.toContain("<script");
  });

  it("rejects bad thresholds and formats as usage errors", async () => {
    expect((await runCli(["agent-eval", "test/evals/", "--min-intent", "90"])).code).toBe(2);
    expect((await runCli(["agent-eval", "test/evals/", "--format", "xml"])).code).toBe(2);
    expect((await runCli(["agent-eval", "test/evals/", "--agent", "nobody"])).code).toBe(2);
  });

  it("reports a suite problem with file:line:col and exits 1 without running", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-evals-"));
    const file = join(dir, "bad.eval.yaml");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(file, "version: 1\nsuite: bad\nscenarios:\n  - id: x\n    intent: { message: hi }\n    expect: { no_call: { why: no_action } }\n    colour: blue\n");
    const r = await runCli(["agent-eval", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:7:5 unknown_field: unknown field "colour"`);
  });
});
