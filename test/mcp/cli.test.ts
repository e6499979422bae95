/** `toolgate mcp`: usage and input errors are located and typed; --handlers loads a host's module. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "toolgate-mcp-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const toolgate = (args: string[]) => runCli(["mcp", ...args], { env: { TOOLGATE_PG_URL: "", TOOLGATE_TOKEN_SECRET: "" } });

describe("toolgate mcp", () => {
  it("exits 2 naming the missing choice for usage errors", async () => {
    const neither = await toolgate(["--demo"]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("--stdio or --http PORT");
    const noPrincipal = await toolgate(["--stdio", "--demo"]);
    expect(noPrincipal.code).toBe(2);
    expect(noPrincipal.stderr).toContain("--tenant T --user U");
  }, 60_000);

  it("exits 1 with file:line:col for a missing handler module or one without handlers, and for HTTP without a secret", async () => {
    const missing = await toolgate(["--stdio", "--handlers", join(dir, "nope.js"), "--tenant", "t", "--user", "u"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.js:1:1 file_not_found/);
    const empty = join(dir, "empty.mjs");
    writeFileSync(empty, "export const other = 1;\n");
    const noHandlers = await toolgate(["--stdio", "--handlers", empty, "--tenant", "t", "--user", "u"]);
    expect(noHandlers.code).toBe(1);
    expect(noHandlers.stderr).toContain("handlers_missing");
    const noSecret = await toolgate(["--http", "0", "--demo"]);
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr).toContain("TOOLGATE_TOKEN_SECRET is not set");
  }, 60_000);

  it("--handlers serves a host's handler module with the project's generated manifest", async () => {
    const module = join(dir, "handlers.mts");
    writeFileSync(
      module,
      `import { EscrowLedger, escrowHandlers } from ${JSON.stringify(resolve("src/demo/escrow.ts"))};\nexport const handlers = escrowHandlers(new EscrowLedger());\n`,
    );
    const client = new Client({ name: "t", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["bin/toolgate.js", "mcp", "--stdio", "--handlers", module, "--db", join(dir, "h.db"), "--tenant", "t_acme", "--user", "alice", "--roles", "viewer"],
        env: { PATH: process.env["PATH"] ?? "" },
        stderr: "pipe",
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["get_account", "get_reservation", "list_transactions"]);
      const read = await client.callTool({ name: "get_account", arguments: { account_id: "acc_bob" } });
      expect(read.structuredContent).toMatchObject({ outcome: "success", value: { account_id: "acc_bob" } });
    } finally {
      await client.close();
    }
  }, 60_000);
});
