/**
 * The MCP Inspector's CLI (@modelcontextprotocol/inspector-cli) listing and calling tools
 * of `toolgate mcp --stdio` and of the Streamable HTTP endpoint.
 */
import { execFile } from "node:child_process";
import type { Server as HttpServer } from "node:http";
import { dirname, resolve } from "node:path";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveMcpHttp } from "../../src/mcp/index.js";
import type { Store } from "../../src/store/store.js";
import { makeTestGate, storeSite } from "./fixture.js";
import type { StoreSite, TestGate } from "./fixture.js";

const run = promisify(execFile);
const project = resolve(".");
// The CLI reads its own package.json relative to the working directory: run it from its build folder.
const inspectorBuild = dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli/build/index.js"));

async function inspector(args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, [resolve(inspectorBuild, "index.js"), ...args], {
    cwd: inspectorBuild,
    timeout: 60_000,
    // The launched server inherits this: it uses its SQLite file even when the run has TOOLGATE_PG_URL set.
    env: { ...process.env, TOOLGATE_PG_URL: "" },
  });
  return JSON.parse(stdout) as unknown;
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

describe("MCP Inspector CLI against toolgate mcp", () => {
  let site: StoreSite;
  let store: Store;
  let gate: TestGate;
  let http: HttpServer;
  let url: string;
  const secret = new TextEncoder().encode("an-hs256-secret-of-at-least-32-bytes!");

  beforeAll(async () => {
    site = await storeSite("sqlite");
    store = await site.open();
    gate = await makeTestGate(store);
    http = await serveMcpHttp(gate.runtime, { port: 0, secret });
    const address = http.address();
    url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/mcp`;
  });
  afterAll(async () => {
    await new Promise((r) => http?.close(r));
    await store?.close();
    await site?.drop();
  });

  it("lists the permitted tools over stdio (no destructive tool) and calls a read", async () => {
    const listed = (await inspector([...stdioServer(`${site.db}-stdio`), "--method", "tools/list"])) as { tools: { name: string; annotations?: unknown }[] };
    const names = listed.tools.map((t) => t.name);
    expect(names).toContain("get_account");
    expect(names).toContain("reserve_funds");
    expect(names).not.toContain("close_account");
    expect(listed.tools.find((t) => t.name === "get_account")?.annotations).toEqual({ readOnlyHint: true });

    const called = await inspector([...stdioServer(`${site.db}-stdio`), "--method", "tools/call", "--tool-name", "get_account", "--tool-arg", "account_id=acc_alice"]);
    expect(called).toMatchObject({ structuredContent: { outcome: "success", value: { account_id: "acc_alice" } } });
  }, 60_000);

  it("lists and calls over Streamable HTTP with a bearer token; a write answers approval_required", async () => {
    const bearer = await new SignJWT({ tenant: "t_acme", sub: "alice", roles: ["agent"] }).setProtectedHeader({ alg: "HS256" }).setExpirationTime("5m").sign(secret);
    const common = [url, "--transport", "http", "--header", `Authorization: Bearer ${bearer}`];
    const listed = (await inspector([...common, "--method", "tools/list"])) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).not.toContain("close_account");
    expect(listed.tools.map((t) => t.name)).toContain("confirm_transfer");

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
    expect(write).toMatchObject({ isError: true, structuredContent: { outcome: "terminal_failure", reason: "approval_required", operation_id: "op-inspector" } });
    expect(gate.ledger.effectsOf("op-inspector")).toHaveLength(0);
  }, 60_000);
});
