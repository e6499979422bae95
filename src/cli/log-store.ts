/**
 * How `log`, `explain` and `replay` open the store: `--db FILE` (SQLite), or
 * `--url URL` / $TOOLGATE_PG_URL (PostgreSQL, `--schema` / $TOOLGATE_PG_SCHEMA), through
 * `openStore`; this module only words its errors for these commands.
 * Enters: the parsed options. Leaves: an open Store, or a located error line.
 */
import type { Command } from "commander";
import { isStoreOpenError, openStore, pgSchemaEnvVar } from "../store/open-store.js";
import type { OpenStoreOptions } from "../store/open-store.js";
import { pgUrlEnvVar } from "../store/postgres/env.js";
import { isPgStoreError } from "../store/postgres/errors.js";
import type { Store } from "../store/store.js";

export interface LogStoreOptions {
  readonly db?: string;
  readonly url?: string;
  readonly schema?: string;
}

export function addLogStoreOptions(cmd: Command): Command {
  return cmd
    .option("--db <file>", "SQLite store file (e.g. the one `toolgate demo --db FILE` wrote)")
    .option("--url <url>", `PostgreSQL store URL (default: $${pgUrlEnvVar})`)
    .option("--schema <name>", `PostgreSQL schema (default: $${pgSchemaEnvVar} or "public")`);
}

/** The store flags as `openStore` options: a reader opens only a store that exists, never a default file. */
export function storeFlagOptions(f: LogStoreOptions): OpenStoreOptions {
  return {
    ...(f.db === undefined ? {} : { path: f.db }),
    ...(f.url === undefined ? {} : { url: f.url }),
    ...(f.schema === undefined ? {} : { schema: f.schema }),
    defaultPath: null,
    existingFile: true,
  };
}

export type Opened = { readonly store: Store } | { readonly error: string; readonly exitCode: 1 | 2 };

export async function openLogStore(command: string, opts: LogStoreOptions, env: NodeJS.ProcessEnv = process.env): Promise<Opened> {
  try {
    return { store: await openStore({ ...storeFlagOptions(opts), max: 2, applicationName: `toolgate ${command}`, env }) };
  } catch (err) {
    if (isStoreOpenError(err)) {
      if (err.code === "store_conflict") return { error: `toolgate ${command}: pass either --db or --url, not both`, exitCode: 2 };
      if (err.code === "store_missing") return { error: `toolgate ${command}: no store: pass --db FILE (SQLite) or --url URL / set ${pgUrlEnvVar} (PostgreSQL)`, exitCode: 2 };
      return { error: `${err.path}:1:1 file_not_found: no store file ${err.path}\n  hint: pass the --db file your runtime (or \`toolgate demo --db FILE\`) writes`, exitCode: 1 };
    }
    const code = isPgStoreError(err) ? err.code : "pg_connection_failed";
    return { error: `toolgate ${command}:1:1 ${code}: ${err instanceof Error ? err.message : String(err)}`, exitCode: 1 };
  }
}

/** `--since 1h` (a duration back from now) or an ISO date-time; null when neither. */
export function parseSince(text: string, nowMs: number, parseDuration: (t: string) => number | null): number | null {
  const ms = parseDuration(text);
  if (ms !== null) return nowMs - ms;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : at;
}
