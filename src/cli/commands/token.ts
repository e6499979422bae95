/** `toolgate token`: issues an approver token (HS256 JWT) for the inbox and its JSON API. */
import { parseDuration } from "../../../codegen/toolsyaml/duration.js";
import { issueApproverToken } from "../../server/approver-token.js";
import type { RegisterCommand } from "./index.js";

export const approverSecretEnvVar = "TOOLGATE_APPROVER_SECRET";

interface TokenFlags {
  readonly tenant?: string;
  readonly user?: string;
  readonly role?: string[];
  readonly ttl: string;
}

export const registerToken: RegisterCommand = (program, setExitCode) => {
  program
    .command("token")
    .description(`issue an approver token for toolgate serve (signed with $${approverSecretEnvVar})`)
    .requiredOption("--tenant <tenant>", "the approver's tenant")
    .requiredOption("--user <user>", "the approver's user id")
    .option("--role <role>", "a role (repeatable)", (v: string, prev: string[] = []) => [...prev, v])
    .option("--ttl <duration>", "lifetime (e.g. 15m, 8h, 7d)", "8h")
    .action(async (f: TokenFlags) => {
      const secret = process.env[approverSecretEnvVar];
      const fail = (code: string, message: string, hint: string): void => {
        console.error(`toolgate token:1:1 ${code}: ${message}\n  hint: ${hint}`);
        setExitCode(1);
      };
      if (secret === undefined || secret === "") return fail("secret_missing", `$${approverSecretEnvVar} is not set`, `export ${approverSecretEnvVar}=$(openssl rand -hex 32), the same value toolgate serve uses`);
      const ttl = parseDuration(f.ttl);
      if (ttl === null || ttl < 1_000) return fail("usage_error", `--ttl ${JSON.stringify(f.ttl)}: use a duration of at least 1s like 15m, 8h, 7d`, "");
      try {
        console.log(await issueApproverToken({ secret, tenant: f.tenant ?? "", user: f.user ?? "", roles: f.role ?? [], ttlSeconds: Math.floor(ttl / 1000) }));
      } catch (err) {
        fail("invalid_token_request", err instanceof Error ? err.message : String(err), "identities are plain ids; the secret needs at least 32 bytes");
      }
    });
};
