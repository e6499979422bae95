/** The decision entrypoint a command uses when none is passed: tools.yaml's `policy.entrypoint`, else the shipped one. */
import { existsSync } from "node:fs";
import { loadPolicySection } from "../../codegen/toolsyaml/policy-section.js";

export const SHIPPED_ENTRYPOINT = "toolgate/authz/decision";

/** tools.yaml's `policy.entrypoint` (in `config`, default ./tools.yaml) when the file exists and names one, else the shipped default. */
export function defaultEntrypoint(config = "tools.yaml"): string {
  if (!existsSync(config)) return SHIPPED_ENTRYPOINT;
  return loadPolicySection(config).entrypoint ?? SHIPPED_ENTRYPOINT;
}
