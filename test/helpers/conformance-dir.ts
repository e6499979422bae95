import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { repoRoot } from "./repo.js";

/** Names the folder of OPA's conformance cases; relative paths resolve against the working directory. */
export const conformanceDirEnvVar = "TOOLGATE_CONFORMANCE_DIR";

const fromEnv = process.env[conformanceDirEnvVar];

/** The case directory: $TOOLGATE_CONFORMANCE_DIR, else the OPA v1 cases kept beside the project. */
export const defaultCaseDir =
  fromEnv !== undefined && fromEnv !== "" ? resolve(fromEnv) : resolve(repoRoot, "../shared/conformance/opa-v1");

/** Why the conformance cases cannot be read (with how to fix it), or null when they can. */
export function conformanceDirMissing(dir: string = defaultCaseDir): string | null {
  if (existsSync(dir)) return null;
  return `OPA conformance cases not found at ${dir}; set ${conformanceDirEnvVar} to a folder of OPA v1 YAML cases to run these tests`;
}
