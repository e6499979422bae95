/**
 * tools.yaml `policy.builtins`: the module declaring custom builtins. The loader
 * resolves it against the tools.yaml folder and keeps where it was written, so a
 * module that is missing, fails to load or exports something else is reported at
 * that line of tools.yaml (loading the module itself is the CLI's job: src/cli).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic, SourceLocation } from "../diagnostics.js";
import type { RawToolsFile } from "./raw-types.js";
import type { YamlSource } from "./yaml-source.js";

export interface PolicyBuiltinsRef {
  /** As written in tools.yaml. */
  readonly module: string;
  /** Resolved against the folder of tools.yaml. */
  readonly path: string;
  /** Of the `policy.builtins` value. */
  readonly location: SourceLocation;
}

export function policyBuiltinsRef(raw: RawToolsFile, source: YamlSource, baseDir: string): PolicyBuiltinsRef | null {
  const module = raw.policy?.builtins;
  if (module === undefined) return null;
  return { module, path: join(baseDir, module), location: source.locate(["policy", "builtins"]) };
}

export function checkPolicyBuiltinsExists(ref: PolicyBuiltinsRef | null): Diagnostic[] {
  if (ref === null || existsSync(ref.path)) return [];
  return [{
    code: "policy_builtins_missing",
    message: `policy.builtins: no module at ${ref.path}`,
    location: ref.location,
    hint: "give the path of the custom builtins module relative to tools.yaml, or remove policy.builtins",
  }];
}
