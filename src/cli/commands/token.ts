/**
 * `toolgate token`: issues an approver token (HS256 JWT) for the inbox and its JSON API,
 * never living longer than the maximum the verifiers accept (`--max-token-lifetime`, 24h).
 */
import { parseDuration } from "../../../codegen/toolsyaml/duration.js";
import { issueApproverToken } from "../../server/approver-token.js";
import type { RegisterCommand } from "./index.js";

export const approverSecretEnvVar = "TOOLGATE_APPROVER_SECRET";

interface TokenFlags {
  readonly tenant?: string;
  readonly user?: string;
  readonly role?: string[];
  readonly ttl: string;
  readonly maxTokenLifetime: string;
}

/** The flag `serve` and `token` share: the longest lifetime a token may have. */
export const maxTokenLifetimeFlag = ["--max-token-lifetime <duration>", "longest token lifetime verifiers accept (tokens with a later exp are refused)", "24h"] as const;

/** Seconds of a `--max-token-lifetime` value, or null when it is not a duration of at least 1s. */
export function parseMaxTokenLifetime(text: string): number | null {
  const ms = parseDuration(text);
  return ms === null || ms < 1_000 ? null : Math.floor(ms / 1000);
}

export const registerToken: RegisterCommand = (program, setExitCode) => {
  program
    .command("token")
    .description(`issue an approver token for toolgate serve (signed with $${approverSecretEnvVar})`)
    .requiredOption("--tenant <tenant>", "the approver's tenant")
    .requiredOption("--user <user>", "the approver's user id")
    .option("--role <role>", "a role (repeatable)", (v: string, prev: string[] = []) => [...prev, v])
    .option("--ttl <duration>", "lifetime (e.g. 15m, 8h), at most --max-token-lifetime", "8h")
    .option(...maxTokenLifetimeFlag)
    .action(async (f: TokenFlags) => {
      const secret = process.env[approverSecretEnvVar];
      const fail = (code: string, message: string, hint: string): void => {
        console.error(`toolgate token:1:1 ${code}: ${message}\n  hint: ${hint}`);
        setExitCode(1);
      };
      if (secret === undefined || secret === "") return fail("secret_missing", `$${approverSecretEnvVar} is not set`, `export ${approverSecretEnvVar}=$(openssl rand -hex 32), the same value toolgate serve uses`);
      const ttl = parseDuration(f.ttl);
      if (ttl === null || ttl < 1_000) return fail("usage_error", `--ttl ${JSON.stringify(f.ttl)}: use a duration of at least 1s like 15m, 8h, 7d`, "");
      const max = parseMaxTokenLifetime(f.maxTokenLifetime);
      if (max === null) return fail("usage_error", `--max-token-lifetime ${JSON.stringify(f.maxTokenLifetime)}: use a duration of at least 1s like 8h, 24h`, "");
      if (ttl > max * 1000) {
        return fail("ttl_too_long", `--ttl ${f.ttl} exceeds the maximum token lifetime ${f.maxTokenLifetime}: the inbox would refuse the token`, "issue a shorter token, or raise --max-token-lifetime here and on toolgate serve");
      }
      try {
        console.log(await issueApproverToken({ secret, tenant: f.tenant ?? "", user: f.user ?? "", roles: f.role ?? [], ttlSeconds: Math.floor(ttl / 1000), maxLifetimeSeconds: max }));
      } catch (err) {
        fail("invalid_token_request", err instanceof Error ? err.message : String(err), "identities are plain ids; the secret needs at least 32 bytes");
      }
    });
};
