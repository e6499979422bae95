import { relative } from "node:path";
import type { RegisterCommand } from "./index.js";
import { isPgStoreError } from "../../store/postgres/errors.js";
import { defaultMigrationsDir, migrate } from "../../store/postgres/migrations.js";
import { createPgPool, pgUrlEnvVar, resolvePgUrl } from "../../store/postgres/pool.js";

interface MigrateOptions {
  readonly url?: string;
  readonly schema?: string;
}

const schemaEnvVar = "TOOLGATE_PG_SCHEMA";

/** `toolgate migrate`: applies the PostgreSQL store's pending migrations (safe to run from several workers at once). */
export const registerMigrate: RegisterCommand = (program, setExitCode) => {
  program
    .command("migrate")
    .description("Apply pending PostgreSQL store migrations (idempotent; concurrent runs are serialised by an advisory lock)")
    .option("--url <url>", `PostgreSQL connection URL (default: $${pgUrlEnvVar})`)
    .option("--schema <name>", `schema that holds toolgate's tables (default: $${schemaEnvVar} or "public")`)
    .action(async (opts: MigrateOptions) => {
      setExitCode(await runMigrate(opts));
    });
};

async function runMigrate(opts: MigrateOptions): Promise<number> {
  let pool;
  try {
    const schema = opts.schema ?? (process.env[schemaEnvVar] || "public");
    pool = createPgPool({ url: resolvePgUrl(opts.url), schema, max: 1, applicationName: "toolgate migrate" });
    const result = await migrate(pool, { schema });
    for (const mig of result.applied) {
      console.log(`applied ${String(mig.version).padStart(3, "0")}_${mig.name}`);
    }
    const state = result.applied.length === 0 ? "already current" : "migrated";
    console.log(`schema ${result.schema} ${state} at version ${result.version} (${redact(resolvePgUrl(opts.url))})`);
    return 0;
  } catch (err) {
    console.error(describe(err));
    return 1;
  } finally {
    await pool?.end();
  }
}

/** `file:row:col code: message`: migration problems point at the migration file, the rest at the command. */
function describe(err: unknown): string {
  if (isPgStoreError(err)) {
    const version = typeof err.details?.["version"] === "number" ? err.details["version"] : null;
    const file = version === null ? "toolgate migrate" : migrationFile(version);
    const hint =
      err.code === "pg_url_missing"
        ? `\n  hint: export ${pgUrlEnvVar}=postgres://user@host:5432/db or pass --url`
        : "";
    return `${file}:1:1 ${err.code}: ${err.message}${hint}`;
  }
  const message = err instanceof Error ? err.message : String(err);
  const sqlstate = typeof err === "object" && err !== null && "code" in err ? String(err.code) : "";
  return `toolgate migrate:1:1 pg_connection_failed: ${message}${sqlstate === "" ? "" : ` (${sqlstate})`}\n  hint: check --url / $${pgUrlEnvVar} and that PostgreSQL is running`;
}

function migrationFile(version: number): string {
  return `${relative(process.cwd(), defaultMigrationsDir)}/${String(version).padStart(3, "0")}_*.sql`;
}

/** Never print a password from the URL. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== "") u.password = "***";
    return u.toString();
  } catch {
    return "<unparseable url>";
  }
}
