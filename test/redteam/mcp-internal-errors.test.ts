/**
 * A thrown error inside the MCP HTTP endpoint (a store driver's, a policy engine's) never reaches
 * the client: the answer carries a fixed text, the detail goes to the host's onError.
 */
import type { Server as HttpServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveMcpHttp } from "../../src/mcp/index.js";
import { INTERNAL_ERROR_TEXT } from "../../src/mcp/server.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { openSqliteStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/store.js";
import { makeTestGate, reserveArgs } from "../mcp/fixture.js";
import { legacyRpc, modernRpc, secret, token } from "../mcp/wire.js";

const DRIVER_TEXT = "password authentication failed for user \"toolgate_prod\" at db-internal.corp:5432";

describe("MCP HTTP endpoint: thrown errors", () => {
  let store: Store;
  let runtime: Runtime;
  const servers: HttpServer[] = [];
  const logged: unknown[] = [];

  async function listen(rt: Runtime): Promise<URL> {
    const http = await serveMcpHttp(rt, { port: 0, secret, onError: (err) => logged.push(err) });
    servers.push(http);
    const address = http.address();
    return new URL(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/mcp`);
  }

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    runtime = (await makeTestGate(store)).runtime;
  });
  afterAll(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
    await store?.close();
  });

  it("an error thrown while building the request's server answers 500 without the error's text", async () => {
    const broken = new Proxy(runtime, {
      get(target, key, receiver) {
        if (key === "manifest") throw new Error(DRIVER_TEXT);
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const url = await listen(broken);
    logged.length = 0;
    const bearer = await token({ tenant: "t_acme", sub: "alice", roles: ["agent"] });
    const r = await modernRpc(url, bearer, "tools/list", {});
    expect(JSON.stringify(r.body)).not.toContain("toolgate_prod");
    expect(r.status).toBe(500);
    expect(r.body.error?.code).toBe(-32603);
    expect(r.body.error?.message).not.toContain("db-internal");
  });

  it("a store error thrown under tools/list or tools/call reaches onError, and the client only a fixed -32603 text (both eras)", async () => {
    const broken = new Proxy(runtime, {
      get(target, key, receiver) {
        if (key === "listTools" || key === "call") return () => Promise.reject(new Error(DRIVER_TEXT));
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const url = await listen(broken);
    logged.length = 0;
    const bearer = await token({ tenant: "t_acme", sub: "alice", roles: ["agent"] });
    const answers = [
      await modernRpc(url, bearer, "tools/list", {}),
      await modernRpc(url, bearer, "tools/call", { name: "reserve_funds", arguments: { ...reserveArgs, operation_id: "op_err_1" } }),
      await legacyRpc(url, bearer, "tools/list", {}),
      await legacyRpc(url, bearer, "tools/call", { name: "reserve_funds", arguments: { ...reserveArgs, operation_id: "op_err_2" } }),
    ];
    for (const r of answers) {
      expect(JSON.stringify(r.body)).not.toContain("toolgate_prod");
      expect(r.body.error).toEqual({ code: -32603, message: INTERNAL_ERROR_TEXT });
    }
    expect(logged).toHaveLength(answers.length);
    expect(logged.every((e) => e instanceof Error && e.message === DRIVER_TEXT)).toBe(true);
  });
});
