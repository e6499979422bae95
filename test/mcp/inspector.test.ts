/**
 * MCP Inspector 2 (@modelcontextprotocol/inspector) in CLI mode (`mcp-inspector --cli`)
 * listing and calling tools of `toolgate mcp --stdio` and of the Streamable HTTP endpoint.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveTestGate } from "./fixture.js";
import type { ServedGate, TestGate } from "./fixture.js";
import { secret } from "./wire.js";

const run = promisify(execFile);
const project = resolve(".");
// The package's `mcp-inspector` bin (the launcher); `--cli` selects the CLI client.
const launcher = join(dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json")), "clients/launcher/build/index.js");
// The CLI may keep state under ~/.mcp-inspector: a throwaway home here.
const home = mkdtempSync(join(tmpdir(), "toolgate-inspector-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** One CLI run: its exit code and its JSON answer (a result, or `{ error }` when it exits non-zero). */
async function inspector(args: string[]): Promise<{ code: number; json: unknown }> {
  // --cwd: the stdio server starts in the project (its tsconfig maps the package's own entries).
  const argv = [launcher, "--cli", "--cwd", project, ...args];
  // The launched server inherits this: it uses its SQLite file even when the run has TOOLGATE_PG_URL set.
  const options = { cwd: home, timeout: 60_000, env: { ...process.env, HOME: home, TOOLGATE_PG_URL: "" } };
  try {
    const { stdout } = await run(process.execPath, argv, options);
    return { code: 0, json: JSON.parse(stdout) as unknown };
  } catch (err) {
    const e = err as { code?: number; stdout?: string };
    return { code: typeof e.code === "number" ? e.code : 1, json: JSON.parse(e.stdout ?? "null") as unknown };
  }
}

const stdioServer = (db: string) => [
  process.execPath,
  resolve(project, "bin/toolgate.js"),
  "mcp",
  "--stdio",
  "--demo",
  "--db",
  db,
  "--policy",
  resolve(project, "generated/policy.wasm"),
  "--data",
  resolve(project, "policies/data.json"),
  "--tenant",
  "t_acme",
  "--user",
  "alice",
  "--roles",
  "agent",
];

describe("MCP Inspector 2 (CLI mode) against toolgate mcp", () => {
  let served: ServedGate;
  let gate: TestGate;
  let url: string;

  beforeAll(async () => {
    served = await serveTestGate("sqlite");
    ({ gate } = served);
    url = served.url.href;
  });
  afterAll(async () => {
    await served?.close();
  });

  it("lists the permitted tools over stdio (no destructive tool) and calls a read", async () => {
    const listed = (await inspector([...stdioServer(`${served.site.db}-stdio`), "--method", "tools/list"])).json as { tools: { name: string; annotations?: unknown }[] };
    const names = listed.tools.map((t) => t.name);
    expect(names).toContain("get_account");
    expect(names).toContain("reserve_funds");
    expect(names).not.toContain("close_account");
    expect(listed.tools.find((t) => t.name === "get_account")?.annotations).toEqual({ readOnlyHint: true });

    const called = await inspector([...stdioServer(`${served.site.db}-stdio`), "--method", "tools/call", "--tool-name", "get_account", "--tool-arg", "account_id=acc_alice"]);
    expect(called.json).toMatchObject({ structuredContent: { outcome: "success", value: { account_id: "acc_alice" } } });
  }, 60_000);

  it("lists and calls over Streamable HTTP with a bearer token, 2025 and 2026-07-28 eras; a write is a tool error and runs nothing", async () => {
    const bearer = await new SignJWT({ tenant: "t_acme", sub: "alice", roles: ["agent"] }).setProtectedHeader({ alg: "HS256" }).setExpirationTime("5m").sign(secret);
    const common = [url, "--transport", "http", "--header", `Authorization: Bearer ${bearer}`];
    for (const era of ["legacy", "modern"]) {
      const listed = (await inspector([...common, "--protocol-era", era, "--method", "tools/list"])).json as { tools: { name: string }[] };
      expect(listed.tools.map((t) => t.name)).not.toContain("close_account");
      expect(listed.tools.map((t) => t.name)).toContain("confirm_transfer");
      const read = await inspector([...common, "--protocol-era", era, "--method", "tools/call", "--tool-name", "get_account", "--tool-arg", "account_id=acc_bob"]);
      expect(read.json).toMatchObject({ structuredContent: { outcome: "success", value: { account_id: "acc_bob" } } });
    }

    const write = await inspector([
      ...common,
      "--method",
      "tools/call",
      "--tool-name",
      "reserve_funds",
      "--tool-arg",
      "account_id=acc_alice",
      "amount=1000",
      "currency=EUR",
      "recipient=acc_bob",
      "operation_id=op-inspector",
    ]);
    // Inspector 2 prints an isError result and exits non-zero.
    expect(write.code).not.toBe(0);
    expect(write.json).toMatchObject({ isError: true, structuredContent: { outcome: "terminal_failure", reason: "approval_required", operation_id: "op-inspector" } });
    expect(gate.ledger.effectsOf("op-inspector")).toHaveLength(0);
  }, 60_000);
});
