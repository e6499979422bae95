/**
 * Usage errors go through console.error like every other line the CLI prints, so the tests
 * that expect them capture them (no stray usage text on stderr in a green run), and the
 * flags and help say what the commands accept.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { rolesFromFlags } from "../../src/cli/role-flags.js";
import { runCli } from "../helpers/cli.js";

afterEach(() => vi.restoreAllMocks());

describe("CLI usage output and flags", () => {
  it("usage errors and help are written through console (captured by the caller), never straight to process.stderr", async () => {
    const raw = vi.spyOn(process.stderr, "write");
    const unknownOption = await runCli(["approvals", "list", "--bogus"]);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("unknown option '--bogus'");
    const unknownCommand = await runCli(["aprovals"]);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toContain("Did you mean approvals?");
    const missing = await runCli(["replay"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--policy <file>' not specified");
    expect(raw).not.toHaveBeenCalled();
  });

  it("mcp takes --role R, repeatable, like approvals and token; --roles a,b still works as a deprecated alias", async () => {
    expect(rolesFromFlags({ role: ["agent", "support"] })).toEqual({ roles: ["agent", "support"], deprecatedRolesFlag: false });
    expect(rolesFromFlags({ roles: "agent, support" })).toEqual({ roles: ["agent", "support"], deprecatedRolesFlag: true });
    expect(rolesFromFlags({ role: ["agent"], roles: "agent,viewer" })).toEqual({ roles: ["agent", "viewer"], deprecatedRolesFlag: true });
    expect(rolesFromFlags({})).toEqual({ roles: [], deprecatedRolesFlag: false });
    const help = await runCli(["mcp", "--help"]);
    expect(help.stdout).toMatch(/--role <role>\s+stdio: one of the principal's roles \(repeatable\)/);
    expect(help.stdout).toMatch(/--roles <roles>\s+stdio: deprecated/);
  });

  it("mcp --help says a .ts handlers module works; approvals --help marks --as and --tenant required", async () => {
    const mcp = await runCli(["mcp", "--help"]);
    expect(mcp.stdout.replace(/\s+/g, " ")).toContain("a .ts module (loaded through the project's tsx)");
    for (const sub of ["list", "show", "approve", "reject", "edit", "revoke"]) {
      const help = (await runCli(["approvals", sub, "--help"])).stdout.replace(/\s+/g, " ");
      expect(help, sub).toMatch(/--as <user> required:/);
      expect(help, sub).toMatch(/--tenant <tenant> required:/);
    }
  });
});
