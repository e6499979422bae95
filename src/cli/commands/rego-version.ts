import { existsSync } from "node:fs";
import type { Command } from "commander";
import type { RegoVersion } from "../../../codegen/rego/index.js";
import { loadPolicySection } from "../../../codegen/toolsyaml/policy-section.js";

export const V0_FLAG_HELP = "parse pre-1.0 Rego (bodies without `if`, `p[x] { ... }` partial sets); files with `import rego.v1` stay v1 (default: tools.yaml policy.rego_version)";

/** Adds `--v0-compatible` to a command. */
export function withV0Option(cmd: Command): Command {
  return cmd.option("--v0-compatible", V0_FLAG_HELP);
}

/** `--v0-compatible` wins; else tools.yaml's `policy.rego_version` when the file names one; else v1. */
export function regoVersionOf(opts: { v0Compatible?: boolean }): RegoVersion {
  if (opts.v0Compatible === true) return "v0";
  if (!existsSync("tools.yaml")) return "v1";
  return loadPolicySection("tools.yaml").regoVersion ?? "v1";
}
