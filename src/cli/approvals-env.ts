/**
 * What the approvals CLI commands (approvals, serve) share: opening the store from
 * --db / --url / TOOLGATE_PG_URL (`openStore`), the approver identity from --as/--tenant/--role, and
 * the standalone approvals API over the project's generated/ code and compiled policy.
 */
import { existsSync } from "node:fs";
import { projectPolicyBuiltins } from "./policy-builtins.js";
import { importUserModule, isUserModuleError } from "./user-module.js";
import { resolve } from "node:path";
import { createApprovals } from "../approvals/create-approvals.js";
import type { InboxApprovals } from "../approvals/approvals-api.js";
import type { Manifest } from "../manifest.js";
import type { PolicyEngine } from "../policy/engine.js";
import { loadPolicyEngineFromFiles } from "../policy/index.js";
import type { ApproverContext } from "../approvals/approver.js";
import type { ToolValidators } from "../runtime/types.js";
import { isStoreOpenError, openStore } from "../store/open-store.js";
import { storeFlagOptions } from "./log-store.js";
import { pgUrlEnvVar } from "../store/postgres/env.js";
import type { Store } from "../store/store.js";

export interface StoreFlags {
  readonly db?: string;
  readonly url?: string;
  readonly schema?: string;
}

export interface ProjectFlags {
  readonly generated: string;
  readonly policy: string;
  readonly data: string;
}

export interface ApproverFlags {
  readonly as?: string;
  readonly tenant?: string;
  readonly role?: readonly string[];
}

/** A problem in the command's input: printed as `toolgate <cmd>:1:1 code: message` with a hint, exit 1. */
export class CliInputError extends Error {
  override name = "CliInputError";
  constructor(
    readonly code: string,
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

export const isCliInputError = (e: unknown): e is CliInputError => e instanceof CliInputError;

/** The store of --db / --url / --schema (else TOOLGATE_PG_URL), through `openStore`; its errors as CliInputError. */
export async function openStoreFromFlags(f: StoreFlags): Promise<Store> {
  try {
    return await openStore({ ...storeFlagOptions(f), max: 4, applicationName: "toolgate approvals" });
  } catch (err) {
    if (!isStoreOpenError(err)) throw err;
    if (err.code === "store_conflict") throw new CliInputError("usage_error", "pass either --db or --url, not both", "--db FILE for SQLite, --url URL for PostgreSQL");
    if (err.code === "store_missing") throw new CliInputError("store_missing", "no store: pass --db FILE or --url URL", `or export ${pgUrlEnvVar}=postgres://user@host:5432/db`);
    throw new CliInputError("file_not_found", `${err.path ?? ""} does not exist`, "pass the SQLite file the runtime writes to");
  }
}

const identity = /^[A-Za-z0-9_.@:+-]{1,128}$/;

export function approverFromFlags(f: ApproverFlags): ApproverContext {
  if (f.as === undefined || f.tenant === undefined) {
    throw new CliInputError("approver_missing", "say who you are: --as USER --tenant TENANT [--role ROLE]", "the approver's identity is recorded with every decision");
  }
  for (const [flag, v] of [["--as", f.as], ["--tenant", f.tenant], ...(f.role ?? []).map((r) => ["--role", r] as const)] as const) {
    if (!identity.test(v)) throw new CliInputError("invalid_identity", `${flag} ${JSON.stringify(v)}: use 1-128 of A-Z a-z 0-9 _ . @ : + -`, "identities are plain ids");
  }
  return { tenant: f.tenant, user: f.as, roles: [...(f.role ?? [])] };
}

interface GeneratedModule {
  readonly manifest: Manifest;
  readonly validators: { readonly [tool: string]: ToolValidators };
}

export async function loadGenerated(dir: string): Promise<GeneratedModule> {
  const candidates = ["index.ts", "index.js"].map((f) => resolve(dir, f));
  const file = candidates.find((c) => existsSync(c));
  if (file === undefined) throw new CliInputError("file_not_found", `${dir}/index.ts does not exist`, "run `toolgate codegen` or pass --generated DIR");
  let mod: Partial<GeneratedModule>;
  try {
    mod = (await importUserModule(file)) as Partial<GeneratedModule>;
  } catch (err) {
    if (isUserModuleError(err)) throw new CliInputError(err.code, err.message, err.hint);
    throw err;
  }
  if (mod.manifest === undefined || mod.validators === undefined) {
    throw new CliInputError("generated_invalid", `${file} does not export manifest and validators`, "regenerate it with `toolgate codegen`");
  }
  return { manifest: mod.manifest, validators: mod.validators };
}

/** The project's generated manifest and validators and its compiled policy. */
export interface Project extends GeneratedModule {
  readonly policy: PolicyEngine;
}

/** The standalone approvals API (decides, never executes) for this project. */
export async function projectApprovals(store: Store, f: ProjectFlags): Promise<InboxApprovals> {
  const { manifest, validators, policy } = await loadProject(f);
  return createApprovals({ store, manifest, validators, policy });
}

export async function loadProject(f: ProjectFlags): Promise<Project> {
  const generated = await loadGenerated(f.generated);
  for (const [file, hint] of [[f.policy, "run `toolgate build` or pass --policy"], [f.data, "pass --data with your policy data file"]] as const) {
    if (!existsSync(file)) throw new CliInputError("file_not_found", `${file} does not exist`, hint);
  }
  const custom = await projectPolicyBuiltins().catch((err: Error) => {
    throw new CliInputError("policy_builtins_invalid", err.message, "fix tools.yaml policy.builtins or the module it names");
  });
  const policy = await loadPolicyEngineFromFiles({ wasm: f.policy, data: f.data, entrypoint: generated.manifest.policy.entrypoint, ...custom });
  return { ...generated, policy };
}
