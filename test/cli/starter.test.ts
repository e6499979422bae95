/**
 * The project `toolgate init` writes runs its whole loop with `npm start` (src/main.ts):
 * ask (approval_required), approve (printed as the CLI command), resume, replay, deny; on
 * SQLite by default and on PostgreSQL when TOOLGATE_PG_URL is set, with nothing else changed.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { runCliProcess } from "../helpers/cli-process.js";
import { repoRoot } from "../helpers/repo.js";
import { createTestSchema, pgUrl, randomSchemaName, skipWithoutPg } from "../helpers/pg-env.js";

const work = mkdtempSync(join(tmpdir(), "toolgate-starter-"));
const project = join(work, "app");

/** The starter's tsconfig, with `toolgate` resolved to this checkout's sources (as an installed package would be). */
function pointAtSources(dir: string): void {
  symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
  const file = join(dir, "tsconfig.json");
  const tsconfig = JSON.parse(readFileSync(file, "utf8")) as { compilerOptions: Record<string, unknown> };
  tsconfig.compilerOptions["paths"] = {
    toolgate: [join(repoRoot, "src/index.ts")],
    "toolgate/*": [join(repoRoot, "src/*")],
    "toolgate/generated-runtime": [join(repoRoot, "src/generated-runtime.ts")],
    "toolgate/evals": [join(repoRoot, "src/evals/index.ts")],
  };
  writeFileSync(file, JSON.stringify(tsconfig, null, 2));
}

/** What `npm start` runs (`tsx src/main.ts`), with the environment given and nothing else. */
function npmStart(env: Record<string, string | undefined>): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: project,
    env: { PATH: process.env["PATH"], HOME: process.env["HOME"], ...env },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: r.status ?? 1, out: r.stdout, err: r.stderr };
}

beforeAll(async () => {
  expect((await runCli(["init", project])).code).toBe(0);
  pointAtSources(project);
  expect((await runCli(["codegen"], { cwd: project })).code).toBe(0);
  expect((await runCli(["build"], { cwd: project })).code).toBe(0);
}, 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The steps of the loop, in order, each with the envelope it printed. */
function checkLoop(out: string): void {
  const lines = out.split("\n");
  const after = (prefix: string): Record<string, unknown> => {
    const i = lines.findIndex((l) => l.startsWith(prefix));
    expect(i, `no step "${prefix}" in:\n${out}`).toBeGreaterThanOrEqual(0);
    return JSON.parse(lines[i + 1] as string) as Record<string, unknown>;
  };
  expect(after("1. get_order")).toMatchObject({ outcome: "success", value: { order_id: "ord_1001" } });
  const asked = after("2. refund_order");
  expect(asked).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });
  expect(out).toMatch(new RegExp(`npx toolgate approvals approve ${String(asked["approval_id"])} .*--as bob --tenant acme --role approver`));
  const resumed = after("4. the host resumes");
  expect(resumed).toMatchObject({ outcome: "success", replayed: false, value: { amount_cents: 1500 } });
  const replayed = after("5. the model retries");
  expect(replayed).toMatchObject({ outcome: "success", replayed: true, operation_id: resumed["operation_id"], value: resumed["value"] });
  expect(after("6. delete_customer")).toMatchObject({ outcome: "terminal_failure", reason: "destructive_denied" });
  expect(after("7. a second refund")).toMatchObject({ outcome: "terminal_failure", reason: "limit_exceeded", limit: { name: "refunds_per_order", max_sum: 4200 } });
}

describe("the toolgate init starter's npm start", () => {
  it("the starter's src/ and generated/ type-check under its own strict tsconfig (typed client, openStoreFromEnv)", () => {
    const configFile = ts.readConfigFile(join(project, "tsconfig.json"), (f) => ts.sys.readFile(f));
    const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, project);
    // The package's sources stand in for its declarations here; only the project's own files are judged.
    const { rootDir: _rootDir, ...options } = parsed.options;
    const program = ts.createProgram(parsed.fileNames, { ...options, noEmit: true });
    const own = ts.getPreEmitDiagnostics(program).filter((d) => d.file !== undefined && d.file.fileName.startsWith(project));
    expect(own.map((d) => `${d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`)).toEqual([]);
    expect(readFileSync(join(project, "src/main.ts"), "utf8")).toContain("createGate(runtime)");
  }, 120_000);

  it("npm start shows the whole loop on SQLite: ask, approve (the CLI command), resume, replay, deny", () => {
    const r = npmStart({ TOOLGATE_DB: join(work, "state.db") });
    expect(r.code, r.err).toBe(0);
    checkLoop(r.out);
    expect(r.out).toContain(`--db ${join(work, "state.db")}`);
    expect(existsSync(join(work, "state.db"))).toBe(true);
  }, 120_000);

  it("npm start -- --wait waits for the approval a human gives with the toolgate approvals CLI, then resumes and replays", async () => {
    const db = join(work, "wait.db");
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "--wait"], {
      cwd: project,
      env: { PATH: process.env["PATH"], HOME: process.env["HOME"], TOOLGATE_DB: db },
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => void (out += d));
    const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
    try {
      const command = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no CLI command printed:\n${out}`)), 60_000);
        child.stdout.on("data", () => {
          const m = /npx toolgate (approvals approve .*)/.exec(out);
          if (m !== null) {
            clearTimeout(timer);
            resolve(m[1] as string);
          }
        });
      });
      expect(out).toContain("3. waiting for a human to decide");
      // The printed command, as a human would run it.
      const approved = await runCli(command.split(" "), { cwd: project });
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.stdout).toContain("approved by bob");
      expect(await exited).toBe(0);
      checkLoop(out);
    } finally {
      child.kill();
    }
  }, 120_000);

  it("npm run eval scores the starter's suite with the scripted agent offline: 100% intent and failure handling, no network", async () => {
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { scripts: Record<string, string> };
    const script = pkg.scripts["eval"] ?? "";
    expect(script).toMatch(/^toolgate agent-eval .*--agent scripted/);
    const args = script.replace(/^toolgate /, "").split(" ");
    const r = await runCliProcess([...args, "--format", "json"], {
      nodeArgs: ["--import", join(repoRoot, "test/cli/no-network.mjs")],
      cwd: project,
      inheritEnv: false,
      env: { HOME: process.env["HOME"] },
      timeoutMs: 120_000,
    });
    expect(r.stderr).not.toContain("network access attempted");
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { agents: { agent: string; scores: { intent: { rate: number }; failure: { rate: number }; safety: Record<string, number> } }[] };
    expect(result.agents.map((a) => a.agent)).toEqual(["scripted"]);
    const scores = result.agents[0]!.scores;
    expect(scores.intent.rate).toBe(1);
    expect(scores.failure.rate).toBe(1);
    expect(scores.safety).toMatchObject({ retries_after_terminal: 0, new_operation_id_retries: 0, effects_duplicated: 0 });
  }, 120_000);

  describe.skipIf(skipWithoutPg("starter on PostgreSQL"))("on PostgreSQL", () => {
    const schema = randomSchemaName();
    afterAll(async () => {
      const s = await createTestSchema({ migrated: false });
      await s.pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await s.drop();
    });

    it("a starter project runs on PostgreSQL by setting TOOLGATE_PG_URL alone (schema migrated on open, state in PostgreSQL)", async () => {
      const r = npmStart({ TOOLGATE_PG_URL: pgUrl, TOOLGATE_PG_SCHEMA: schema, TOOLGATE_DB: join(work, "must-not-exist.db") });
      expect(r.code, r.err).toBe(0);
      checkLoop(r.out);
      expect(r.out).toContain('--url "$TOOLGATE_PG_URL"');
      expect(existsSync(join(work, "must-not-exist.db"))).toBe(false);
      const s = await createTestSchema({ migrated: false });
      try {
        // The refund that ran, and the second one approved and then refused by its limit.
        const approvals = await s.pool.query<{ status: string }>(`SELECT status FROM ${schema}.approvals`);
        expect(approvals.rows.map((row) => row.status)).toEqual(["approved", "approved"]);
      } finally {
        await s.drop();
      }
    }, 120_000);
  });
});
