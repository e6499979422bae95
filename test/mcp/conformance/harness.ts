/**
 * The conformance suite against the real `toolgate mcp --http` process: the fixture tools of
 * fixture/tools.yaml served by the CLI, behind a proxy that adds a valid bearer token to every
 * request (the suite's CLI cannot send headers), as a reverse proxy in front of the endpoint would.
 * The proxy passes Host and Origin through untouched, so the server's own checks see them.
 */
import { execFile } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { startCliProcess } from "../../helpers/cli-process.js";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { SignJWT } from "jose";

export const fixture = resolve("test/mcp/conformance/fixture");
const secret = "conformance-secret-of-at-least-32-bytes";

export interface ServedGate {
  /** The proxy's URL, the one the suite talks to. */
  readonly url: string;
  close(): Promise<void>;
}

async function startToolgate(db: string): Promise<{ child: ChildProcess; port: number }> {
  const child = startCliProcess(
    [
      "mcp", "--http", "0",
      "--handlers", join(fixture, "handlers.ts"),
      "--generated", join(fixture, "generated"),
      "--policy", join(fixture, "generated/policy.wasm"),
      "--data", join(fixture, "policies/data.json"),
      "--db", db,
    ],
    { inheritEnv: false, env: { TOOLGATE_TOKEN_SECRET: secret }, stdio: ["ignore", "ignore", "pipe"] },
  );
  const port = await new Promise<number>((done, fail) => {
    let err = "";
    child.stderr?.on("data", (b: Buffer) => {
      err += b.toString();
      const m = /serving http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(err);
      if (m !== null) done(Number(m[1]));
    });
    child.once("exit", (code) => fail(new Error(`toolgate mcp exited ${code}: ${err}`)));
  });
  return { child, port };
}

export async function serveFixtureGate(db: string): Promise<ServedGate> {
  const { child, port } = await startToolgate(db);
  const token = await new SignJWT({ tenant: "t_conf", sub: "conformance", roles: ["agent"] })
    .setProtectedHeader({ alg: "HS256" })
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(secret));
  const proxy: Server = createServer((req, res) => {
    const upstream = request(
      { host: "127.0.0.1", port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  const address = proxy.address();
  const proxyPort = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://localhost:${proxyPort}/mcp`,
    async close() {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

const cli = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/dist/index.js");
export const baseline = resolve("test/mcp/conformance/expected-failures.yaml");

/** `conformance server` with these arguments; its exit code and output. */
export function runSuite(args: readonly string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [cli, "server", ...args], { timeout: 240_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout) =>
      done({ code: err === null ? 0 : typeof err.code === "number" ? err.code : 1, stdout }),
    );
  });
}

export interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
}

/** Every scenario's checks, read from the suite's results folder. */
export function scenarioChecks(dir: string): Map<string, Check[]> {
  const out = new Map<string, Check[]>();
  for (const entry of readdirSync(dir)) {
    const scenario = entry.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
    out.set(scenario, JSON.parse(readFileSync(join(dir, entry, "checks.json"), "utf8")) as Check[]);
  }
  return out;
}

export const failing = (checks: readonly Check[]): Check[] => checks.filter((c) => c.status === "FAILURE");
