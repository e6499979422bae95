/**
 * Serves the demo gate over Streamable HTTP for the MCP conformance suite, which cannot
 * send headers: this host authenticates its one client by adding a valid bearer token to
 * every request, as a reverse proxy in front of the endpoint would. Prints the URL.
 */
import { createServer } from "node:http";
import { SignJWT } from "jose";
import { createMcpHttpHandler } from "../../../src/mcp/index.js";
import { makeTestGate, storeSite } from "../fixture.js";

export async function serveForConformance(): Promise<{ url: string; close(): Promise<void> }> {
  const secret = new TextEncoder().encode("conformance-secret-of-at-least-32-bytes");
  const site = await storeSite("sqlite");
  const store = await site.open();
  const gate = await makeTestGate(store);
  const handler = createMcpHttpHandler(gate.runtime, { secret });
  const token = await new SignJWT({ tenant: "t_acme", sub: "alice", roles: ["agent"] }).setProtectedHeader({ alg: "HS256" }).setExpirationTime("1h").sign(secret);
  const http = createServer((req, res) => {
    req.headers.authorization = `Bearer ${token}`;
    void handler(req, res);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const address = http.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://localhost:${port}/mcp`,
    async close() {
      await new Promise((r) => http.close(r));
      await store.close();
      await site.drop();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await serveForConformance();
  console.log(s.url);
  process.on("SIGINT", () => void s.close().then(() => process.exit(0)));
}
