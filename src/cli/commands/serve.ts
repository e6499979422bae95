/**
 * `toolgate serve`: the approvals HTTP service and web inbox over the project's store.
 * Without `--handlers` it decides but never executes: the host's runtime resumes approved
 * calls (`runtime.approvals.resume`), or the agent retries with the approval id. With
 * `--handlers <module>` it runs each call as it is approved, through `approvals.resume`
 * (the same operation as the host's resume and the agent's retry: one effect).
 */
import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import type { InboxApprovals } from "../../approvals/approvals-api.js";
import type { RuntimeApprovals } from "../../runtime/runtime.js";
import { createApprovals } from "../../approvals/create-approvals.js";
import { startAnnouncer } from "../../server/webhook.js";
import type { Announcer } from "../../server/webhook.js";
import { createTokenVerifier } from "../../server/approver-token.js";
import { createInboxApp } from "../../server/inbox-app.js";
import { listenInbox } from "../../server/serve-inbox.js";
import type { Store } from "../../store/store.js";
import { CliInputError, isCliInputError, loadProject, openStoreFromFlags } from "../approvals-env.js";
import type { Project, ProjectFlags, StoreFlags } from "../approvals-env.js";
import { importUserModule, isUserModuleError } from "../user-module.js";
import { approverSecretEnvVar, maxTokenLifetimeFlag, parseMaxTokenLifetime } from "./token.js";
import type { RegisterCommand } from "./index.js";

const webhookSecretEnvVar = "TOOLGATE_WEBHOOK_SECRET";

interface ServeFlags extends StoreFlags, ProjectFlags {
  readonly port: string;
  readonly host: string;
  readonly baseUrl?: string;
  readonly webhook?: string;
  readonly maxTokenLifetime: string;
  readonly handlers?: string;
}

/** The approvals API: with a handler module, a runtime's (it can run approved calls); without, decide-only. */
async function approvalsFor(store: Store, project: Project, handlersFile: string | undefined): Promise<InboxApprovals | RuntimeApprovals> {
  if (handlersFile === undefined) return createApprovals({ store, manifest: project.manifest, validators: project.validators, policy: project.policy });
  if (!existsSync(handlersFile)) throw new CliInputError("file_not_found", `handler module ${handlersFile} does not exist`, "pass the module that exports your `handlers` (as for toolgate mcp --handlers)");
  let mod: { handlers?: unknown; reconcilers?: unknown; context?: unknown };
  try {
    mod = (await importUserModule(handlersFile)) as typeof mod;
  } catch (err) {
    if (isUserModuleError(err)) throw new CliInputError(err.code, err.message, err.hint);
    throw err;
  }
  const object = (v: unknown): Record<string, never> | undefined => (typeof v === "object" && v !== null ? (v as Record<string, never>) : undefined);
  const handlers = object(mod.handlers);
  if (handlers === undefined) throw new CliInputError("handlers_missing", `${handlersFile} does not export \`handlers\``, "export const handlers: ToolHandlers = { ... } (and optionally reconcilers, context)");
  const { createRuntime, isRuntimeConfigError } = await import("../../runtime/index.js");
  const reconcilers = object(mod.reconcilers);
  const context = object(mod.context);
  try {
    const runtime = createRuntime({
      manifest: project.manifest,
      validators: project.validators,
      handlers,
      ...(reconcilers === undefined ? {} : { reconcilers }),
      ...(context === undefined ? {} : { context }),
      policy: project.policy,
      store,
    });
    return runtime.approvals;
  } catch (err) {
    if (isRuntimeConfigError(err)) throw new CliInputError("handlers_invalid", `${handlersFile}: ${err.message}`, "the module must export a handler for every tool in tools.yaml");
    throw err;
  }
}

export const registerServe: RegisterCommand = (program, setExitCode) => {
  program
    .command("serve")
    .description(`serve the approvals inbox and JSON API (approvers sign in with tokens from toolgate token; needs $${approverSecretEnvVar})`)
    .option("--db <file>", "SQLite store file")
    .option("--url <url>", "PostgreSQL URL (default: $TOOLGATE_PG_URL)")
    .option("--schema <name>", "PostgreSQL schema")
    .option("--port <port>", "port to listen on", "8787")
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--base-url <url>", "public URL of this service, for links in webhooks (default http://HOST:PORT)")
    .option("--webhook <url>", `POST a signed announcement of each new pending approval here (HMAC key: $${webhookSecretEnvVar})`)
    .option("--generated <dir>", "the project's generated code", "generated")
    .option("--policy <file>", "compiled policy", "generated/policy.wasm")
    .option("--data <file>", "policy data", "policies/data.json")
    .option(...maxTokenLifetimeFlag)
    .option("--handlers <module>", "run each call on this host as soon as it is approved, with the module's `handlers` (exactly once, as resume does); without it serve only decides")
    .action(async (f: ServeFlags) => {
      const fail = (code: string, message: string, hint: string): void => {
        console.error(`toolgate serve:1:1 ${code}: ${message}${hint === "" ? "" : `\n  hint: ${hint}`}`);
        setExitCode(1);
      };
      const secret = process.env[approverSecretEnvVar] ?? "";
      if (new TextEncoder().encode(secret).length < 32) return fail("secret_missing", `$${approverSecretEnvVar} must hold at least 32 bytes`, `export ${approverSecretEnvVar}=$(openssl rand -hex 32)`);
      const webhookSecret = process.env[webhookSecretEnvVar] ?? "";
      if (f.webhook !== undefined && webhookSecret.length < 16) return fail("secret_missing", `--webhook needs $${webhookSecretEnvVar} (at least 16 characters)`, "the receiver checks the X-Toolgate-Signature header with it");
      const maxLifetimeSeconds = parseMaxTokenLifetime(f.maxTokenLifetime);
      if (maxLifetimeSeconds === null) return fail("usage_error", `--max-token-lifetime ${JSON.stringify(f.maxTokenLifetime)}: use a duration of at least 1s like 8h, 24h`, "");
      if (!/^\d{1,5}$/.test(f.port) || Number(f.port) > 65535) return fail("usage_error", `--port ${JSON.stringify(f.port)}: a port number`, "");
      let store: Store | null = null;
      let announcer: Announcer | null = null;
      try {
        store = await openStoreFromFlags(f);
        const project = await loadProject(f);
        const approvals = await approvalsFor(store, project, f.handlers);
        const csrfSecret = createHmac("sha256", secret).update("toolgate csrf").digest("hex");
        const app = createInboxApp({
          approvals,
          resumeOnDecision: f.handlers !== undefined,
          verifyApprover: createTokenVerifier({ secret, maxLifetimeSeconds }),
          csrfSecret,
          operations: store,
          passkeys: store,
          tools: project.manifest.tools,
          limits: { manifest: project.manifest, store },
        });
        const running = await listenInbox(app, { port: Number(f.port), host: f.host });
        const baseUrl = f.baseUrl ?? running.url;
        if (f.webhook !== undefined) {
          announcer = startAnnouncer({ store, url: f.webhook, secret: webhookSecret, baseUrl, onError: (err) => console.error(`toolgate serve: webhook: ${err instanceof Error ? err.message : String(err)}`) });
        }
        const runs = f.handlers === undefined ? "decides only: the host resumes approved calls" : `runs approved calls with ${f.handlers}`;
        console.log(`toolgate serve: inbox at ${baseUrl}/approvals (store ${store.kind}, ${runs}${f.webhook === undefined ? "" : `, webhook ${f.webhook}`})`);
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
        });
        await announcer?.stop();
        await running.close();
      } catch (err) {
        if (isCliInputError(err)) fail(err.code, err.message, err.hint);
        else fail("serve_failed", err instanceof Error ? err.message : String(err), "check --db / --url, --port and the generated/ files");
      } finally {
        await store?.close();
      }
    });
};
