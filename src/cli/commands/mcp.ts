import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CustomBuiltins } from "../../policy/builtins/index.js";
import { projectPolicyBuiltins } from "../policy-builtins.js";
import { importUserModule, isUserModuleError } from "../user-module.js";
import { collectRepeated, rolesFromFlags } from "../role-flags.js";
import type { RegisterCommand } from "./index.js";
import type { Manifest } from "../../manifest.js";
import type { ToolValidators } from "../../runtime/types.js";

interface McpOptions {
  stdio?: boolean;
  http?: string;
  handlers?: string;
  demo?: boolean;
  generated: string;
  policy: string;
  data: string;
  entrypoint?: string;
  db?: string;
  tenant?: string;
  user?: string;
  role?: string[];
  roles?: string;
  runId?: string;
  host: string;
  tokenSecretEnv: string;
  approvalLink?: string;
  allowedHost: string[];
}

class UsageError extends Error {}
class InputError extends Error {}

async function policyBuiltins(): Promise<{ builtins?: CustomBuiltins }> {
  try {
    return await projectPolicyBuiltins();
  } catch (err) {
    throw new InputError((err as Error).message);
  }
}

type HandlerModule = { handlers?: unknown; reconcilers?: unknown };
type Generated = { manifest: Manifest; validators: Record<string, ToolValidators> };

async function importFile<T>(file: string, what: string): Promise<T> {
  if (!existsSync(file)) throw new InputError(`${file}:1:1 file_not_found: ${what} ${file} does not exist`);
  try {
    return (await importUserModule(file)) as T;
  } catch (err) {
    if (isUserModuleError(err)) throw new InputError(`${file}:1:1 ${err.code}: ${err.message}\n  hint: ${err.hint}`);
    throw err;
  }
}

async function loadGenerated(dir: string): Promise<Generated> {
  const index = ["index.ts", "index.js"].map((f) => join(dir, f)).find((f) => existsSync(f));
  if (index === undefined) throw new InputError(`${join(dir, "index.ts")}:1:1 file_not_found: no generated code in ${dir}\n  hint: run \`toolgate codegen\` first`);
  return importFile<Generated>(index, "generated index");
}

async function handlerModule(opts: McpOptions): Promise<{ generated: Generated; handlers: object; reconcilers: object }> {
  if (opts.demo === true) {
    const [{ EscrowLedger, escrowHandlers, escrowReconcilers }, generated] = await Promise.all([
      import("../../demo/escrow.js"),
      import("../../../generated/index.js"),
    ]);
    const ledger = new EscrowLedger();
    return { generated, handlers: escrowHandlers(ledger), reconcilers: escrowReconcilers(ledger) };
  }
  const file = opts.handlers as string;
  const mod = await importFile<HandlerModule>(file, "handler module");
  if (typeof mod.handlers !== "object" || mod.handlers === null) {
    throw new InputError(`${file}:1:1 handlers_missing: the module does not export \`handlers\`\n  hint: export const handlers: ToolHandlers = { ... }`);
  }
  const reconcilers = typeof mod.reconcilers === "object" && mod.reconcilers !== null ? mod.reconcilers : {};
  return { generated: await loadGenerated(opts.generated), handlers: mod.handlers, reconcilers };
}

function checkUsage(opts: McpOptions): void {
  if ((opts.stdio === true) === (opts.http !== undefined)) throw new UsageError("give exactly one of --stdio or --http PORT");
  if ((opts.demo === true) === (opts.handlers !== undefined)) throw new UsageError("give exactly one of --handlers ./handlers.js or --demo");
  if (opts.stdio === true && (opts.tenant === undefined || opts.user === undefined)) {
    throw new UsageError("--stdio needs the principal from the launching host: --tenant T --user U [--role R ...]");
  }
  if (opts.http !== undefined && !/^\d{1,5}$/.test(opts.http)) throw new UsageError(`--http takes a port number, not ${JSON.stringify(opts.http)}`);
}

async function run(opts: McpOptions): Promise<void> {
  checkUsage(opts);
  if (opts.http !== undefined && (process.env[opts.tokenSecretEnv] ?? "") === "") {
    throw new InputError(`${opts.tokenSecretEnv} is not set: --http verifies bearer tokens (JWT HS256) with that secret\n  hint: export ${opts.tokenSecretEnv}=<at least 32 bytes>`);
  }
  const { generated, handlers, reconcilers } = await handlerModule(opts);
  // Loaded after the usage and input checks, so those errors answer without loading the runtime.
  const [{ createRuntime }, { loadCommandPolicy }, { openStore }, mcp] = await Promise.all([
    import("../../runtime/index.js"),
    import("../policy-engine.js"),
    import("../../store/index.js"),
    import("../../mcp/index.js"),
  ]);
  const { hs256Secret, localHosts, serveMcpHttp, serveMcpStdio } = mcp;
  const entrypoint = opts.entrypoint ?? generated.manifest.policy.entrypoint;
  const policyLoad = await loadCommandPolicy({ wasm: opts.policy, data: opts.data, entrypoint }, policyBuiltins);
  if ("error" in policyLoad) throw new InputError(policyLoad.error);
  const policy = policyLoad.engine;
  const db = opts.db ?? join(mkdtempSync(join(tmpdir(), "toolgate-mcp-")), "state.db");
  const store = await openStore({ defaultPath: db });
  const runtime = createRuntime({
    manifest: generated.manifest,
    validators: generated.validators,
    handlers: handlers as Record<string, never>,
    reconcilers: reconcilers as Record<string, never>,
    policy,
    store,
  });
  const approvalLink = opts.approvalLink === undefined ? {} : { approvalLink: opts.approvalLink };
  try {
    if (opts.stdio === true) {
      // stdout carries the protocol: every human-readable line goes to stderr.
      const { roles, deprecatedRolesFlag } = rolesFromFlags(opts);
      if (deprecatedRolesFlag) process.stderr.write("toolgate mcp: --roles a,b is deprecated; use --role a --role b (as approvals and token do)\n");
      const principal = { tenant: opts.tenant as string, user: opts.user as string, roles, run_id: opts.runId ?? `mcp_stdio_${process.pid}` };
      const served = serveMcpStdio(runtime, { principal, ...approvalLink });
      process.stderr.write(`toolgate mcp: serving ${Object.keys(generated.manifest.tools).length} tools on stdio as ${principal.user}@${principal.tenant}\n`);
      await served.closed;
      await served.close();
    } else {
      const secretText = process.env[opts.tokenSecretEnv];
      if (secretText === undefined || secretText === "") {
        throw new InputError(`${opts.tokenSecretEnv} is not set: --http verifies bearer tokens (JWT HS256) with that secret\n  hint: export ${opts.tokenSecretEnv}=<at least 32 bytes>`);
      }
      let secret: Uint8Array;
      try {
        secret = hs256Secret(secretText);
      } catch (err) {
        throw new InputError(`${opts.tokenSecretEnv}: ${err instanceof Error ? err.message : String(err)}`);
      }
      const http = await serveMcpHttp(runtime, {
        port: Number(opts.http),
        host: opts.host,
        secret,
        allowedHosts: [...localHosts, ...opts.allowedHost],
        ...approvalLink,
      });
      const address = http.address();
      const port = typeof address === "object" && address !== null ? address.port : Number(opts.http);
      process.stderr.write(`toolgate mcp: serving http://${opts.host}:${port}/mcp (bearer tokens verified with ${opts.tokenSecretEnv})\n`);
      await new Promise<void>((done) => {
        const stop = () => http.close(() => done());
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
    }
  } finally {
    await store.close();
  }
}

export const registerMcp: RegisterCommand = (program, setExitCode) => {
  program
    .command("mcp")
    .description("serve the gated tools as an MCP server over stdio or Streamable HTTP")
    .option("--stdio", "speak MCP on stdin/stdout (the principal comes from --tenant/--user/--role)")
    .option("--http <port>", "serve MCP over Streamable HTTP at /mcp (bearer tokens: JWT HS256 with tenant, sub, roles, exp)")
    .option("--handlers <module>", "module exporting `handlers` (and optionally `reconcilers`): a .js module, or a .ts module (loaded through the project's tsx)")
    .option("--demo", "serve the example escrow tools with in-memory handlers")
    .option("--generated <dir>", "generated code of the tools (toolgate codegen), with --handlers", "generated")
    .option("--policy <file>", "compiled policy (toolgate build)", "generated/policy.wasm")
    .option("--data <file>", "policy data (limits, roles)", "policies/data.json")
    .option("--entrypoint <path>", "policy decision entrypoint (default: tools.yaml's policy.entrypoint)")
    .option("--db <file>", "SQLite file (default: a fresh one in a temp dir; TOOLGATE_PG_URL selects PostgreSQL)")
    .option("--tenant <tenant>", "stdio: the tenant every call runs as")
    .option("--user <user>", "stdio: the user every call runs as")
    .option("--role <role>", "stdio: one of the principal's roles (repeatable)", collectRepeated)
    .option("--roles <roles>", "stdio: deprecated, comma-separated roles (use --role, repeatable)")
    .option("--run-id <id>", "stdio: the agent run id (interrupts apply per run)")
    .option("--host <host>", "http: address to listen on", "127.0.0.1")
    .option("--allowed-host <name...>", "http: host names to answer besides localhost (against DNS rebinding)", [])
    .option("--token-secret-env <var>", "http: environment variable holding the HS256 token secret", "TOOLGATE_TOKEN_SECRET")
    .option("--approval-link <base>", "approvals inbox base URL: approval_required answers link to <base>/approvals/<id>")
    .action(async (opts: McpOptions) => {
      try {
        await run(opts);
      } catch (err) {
        if (err instanceof UsageError) {
          console.error(`toolgate mcp: ${err.message}`);
          setExitCode(2);
        } else if (err instanceof InputError) {
          console.error(err.message);
          setExitCode(1);
        } else throw err;
      }
    });
};
