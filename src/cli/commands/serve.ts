/**
 * `toolgate serve`: the approvals HTTP service and web inbox over the project's store.
 * It decides but never executes: the host's runtime resumes approved calls
 * (`runtime.approvals.resume`), or the agent retries with the approval id.
 */
import { createHmac } from "node:crypto";
import { startAnnouncer } from "../../server/webhook.js";
import type { Announcer } from "../../server/webhook.js";
import { createTokenVerifier } from "../../server/approver-token.js";
import { createInboxApp } from "../../server/inbox-app.js";
import { listenInbox } from "../../server/serve-inbox.js";
import type { Store } from "../../store/store.js";
import { isCliInputError, openStoreFromFlags, projectApprovals } from "../approvals-env.js";
import type { ProjectFlags, StoreFlags } from "../approvals-env.js";
import { approverSecretEnvVar, maxTokenLifetimeFlag, parseMaxTokenLifetime } from "./token.js";
import type { RegisterCommand } from "./index.js";

const webhookSecretEnvVar = "TOOLGATE_WEBHOOK_SECRET";

interface ServeFlags extends StoreFlags, ProjectFlags {
  readonly port: string;
  readonly host: string;
  readonly baseUrl?: string;
  readonly webhook?: string;
  readonly maxTokenLifetime: string;
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
        const approvals = await projectApprovals(store, f);
        const csrfSecret = createHmac("sha256", secret).update("toolgate csrf").digest("hex");
        const app = createInboxApp({ approvals, verifyApprover: createTokenVerifier({ secret, maxLifetimeSeconds }), csrfSecret });
        const running = await listenInbox(app, { port: Number(f.port), host: f.host });
        const baseUrl = f.baseUrl ?? running.url;
        if (f.webhook !== undefined) {
          announcer = startAnnouncer({ store, url: f.webhook, secret: webhookSecret, baseUrl, onError: (err) => console.error(`toolgate serve: webhook: ${err instanceof Error ? err.message : String(err)}`) });
        }
        console.log(`toolgate serve: inbox at ${baseUrl}/approvals (store ${store.kind}${f.webhook === undefined ? "" : `, webhook ${f.webhook}`})`);
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
