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
  /** `policy.rego_version` when it is one of REGO_VERSIONS (undefined when absent or invalid). */
  readonly regoVersion: PolicyRegoVersion | undefined;
  /** `policy.builtins`, resolved against the folder of tools.yaml; null when not set. */
  readonly builtins: PolicyBuiltinsRef | null;
  /** Problems with `policy.rego_version` (not a known version) and `policy.builtins` (not a string, no such module). */
  readonly errors: Diagnostic[];
}

/** The Rego versions a project may set as its policies' default: v1 is OPA 1.x's. */
export const REGO_VERSIONS = ["v0", "v1", "v2"] as const;
export type PolicyRegoVersion = (typeof REGO_VERSIONS)[number];

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
  const version = regoVersionOf(policy.rego_version, parsed.source);
  const regoVersion = version.value;
  if (policy.builtins === undefined) return { entrypoint, regoVersion, builtins: null, errors: version.errors };
  if (typeof policy.builtins !== "string") {
    return {
      entrypoint,
      regoVersion,
      builtins: null,
      errors: [...version.errors, {
        code: "policy_builtins_invalid",
        message: "policy.builtins must be a string: the path of the custom builtins module",
        location: parsed.source.locate(["policy", "builtins"]),
        hint: "give the path of the module relative to tools.yaml, e.g. builtins: ./src/builtins.ts",
      }],
    };
  }
  const builtins = policyBuiltinsRef(value as unknown as RawToolsFile, parsed.source, dirname(path));
  return { entrypoint, regoVersion, builtins, errors: [...version.errors, ...checkPolicyBuiltinsExists(builtins)] };
}

/** `policy.rego_version`: absent, a known version, or an error at its value. */
function regoVersionOf(raw: unknown, source: YamlSource): { readonly value: PolicyRegoVersion | undefined; readonly errors: Diagnostic[] } {
  if (raw === undefined) return { value: undefined, errors: [] };
  if ((REGO_VERSIONS as readonly unknown[]).includes(raw)) return { value: raw as PolicyRegoVersion, errors: [] };
  return {
    value: undefined,
    errors: [{
      code: "policy_rego_version_invalid",
      message: `policy.rego_version must be one of ${REGO_VERSIONS.join(", ")}, not ${JSON.stringify(raw)}`,
      location: source.locate(["policy", "rego_version"]),
      hint: "v1 (the default) is OPA 1.x's Rego; v0 reads pre-1.0 policies (bodies without `if`); v2 reads every file as if it imported rego.v2 (`and`, `or`, grouped `not`)",
    }],
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
