/** The .rego files a command reads from its path arguments. */
import { findRegoFiles, isPathError } from "../../codegen/policytest/files.js";

/**
 * The .rego files under `paths`, or null after printing which path does not exist
 * (exit code 1).
 */
export function regoFilesOrReport(paths: readonly string[], setExitCode: (code: number) => void): string[] | null {
  try {
    return findRegoFiles(paths);
  } catch (err) {
    if (!isPathError(err)) throw err;
    console.error(err.message);
    setExitCode(1);
    return null;
  }
}
