/**
 * tools.yaml's `policy` section alone, for the commands that compile Rego (build,
 * check, test, eval): the YAML is parsed with positions, but the file schema and the
 * tools' schemas are not compiled (loading and running ajv costs most of a second,
 * several times the compile of a small policy). The rest of the file is `codegen`'s
 * business; a file it rejects still gives its policy section here.
 */
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Diagnostic } from "../diagnostics.js";
import { checkPolicyBuiltinsExists, policyBuiltinsRef } from "./policy-builtins.js";
import type { PolicyBuiltinsRef } from "./policy-builtins.js";
import type { RawToolsFile } from "./raw-types.js";
import { parseYamlSource } from "./yaml-source.js";
import type { YamlSource } from "./yaml-source.js";

export interface PolicySection {
  /** `policy.entrypoint` when it is a string. */
  readonly entrypoint: string | undefined;
  /** `policy.rego_version` when it is "v0" or "v1". */
  readonly regoVersion: "v0" | "v1" | undefined;
  /** `policy.builtins`, resolved against the folder of tools.yaml; null when not set. */
  readonly builtins: PolicyBuiltinsRef | null;
  /** Problems with `policy.builtins` (not a string, no such module). */
  readonly errors: Diagnostic[];
}

const NONE: PolicySection = { entrypoint: undefined, regoVersion: undefined, builtins: null, errors: [] };

// One command asks several times (entrypoint, Rego version, builtins); the YAML is parsed once per text.
const parses = new Map<string, { readonly text: string; readonly source: YamlSource | null }>();

/** The policy section of the tools.yaml at `path`; nothing when it cannot be read or parsed (`codegen` reports why). */
export function loadPolicySection(path: string): PolicySection {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return NONE;
  }
  let parsed = parses.get(path);
  if (parsed?.text !== text) {
    parsed = { text, source: parseYamlSource(text, path).source };
    parses.set(path, parsed);
  }
  if (parsed.source === null) return NONE;
  const value: unknown = parsed.source.value;
  const policy: unknown = isRecord(value) ? value.policy : undefined;
  if (!isRecord(policy)) return NONE;
  const entrypoint = typeof policy.entrypoint === "string" ? policy.entrypoint : undefined;
  const regoVersion = policy.rego_version === "v0" || policy.rego_version === "v1" ? policy.rego_version : undefined;
  if (policy.builtins === undefined) return { entrypoint, regoVersion, builtins: null, errors: [] };
  if (typeof policy.builtins !== "string") {
    return {
      entrypoint,
      regoVersion,
      builtins: null,
      errors: [{
        code: "policy_builtins_invalid",
        message: "policy.builtins must be a string: the path of the custom builtins module",
        location: parsed.source.locate(["policy", "builtins"]),
        hint: "give the path of the module relative to tools.yaml, e.g. builtins: ./src/builtins.ts",
      }],
    };
  }
  const builtins = policyBuiltinsRef(value as unknown as RawToolsFile, parsed.source, dirname(path));
  return { entrypoint, regoVersion, builtins, errors: checkPolicyBuiltinsExists(builtins) };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
