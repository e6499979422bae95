/**
 * Where the build commands (codegen, the compiler, test, fmt, init, demo, explain, replay)
 * come from. A checkout of toolgate and the build package hold their modules beside this
 * file; the runtime package ships without them (and without binaryen, prettier and
 * json-schema-to-typescript) and loads them from the build package installed beside it.
 */
import { existsSync } from "node:fs";
import type { RegisterCommand } from "./index.js";

export const buildPackageName = "@toolgate/build";

/** A build command run where only the runtime package is installed. */
export class BuildPackageMissingError extends Error {
  readonly code = "build_package_missing";
  readonly hint = `install it as a devDependency of your project: npm install -D ${buildPackageName}`;
  constructor(readonly command: string) {
    super(`toolgate ${command}: this command is in the build package ${buildPackageName}, which is not installed`);
    this.name = "BuildPackageMissingError";
  }
}

export function isBuildPackageMissingError(err: unknown): err is BuildPackageMissingError {
  return err instanceof BuildPackageMissingError;
}

/** Node's error for an import of the build package when it is not installed. */
const isBuildPackageNotFound = (err: unknown): boolean =>
  err instanceof Error && (err as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND" && err.message.includes(`'${buildPackageName}`);

/** Imports a build command's module from the installed build package (its `commands/*` export). */
export type BuildPackageImporter = (file: string) => Promise<Record<string, unknown>>;

const importFromBuildPackage: BuildPackageImporter = (file) => import(`@toolgate/build/commands/${file}.js`) as Promise<Record<string, unknown>>;

/** The module of a build command: the one beside this file when present, else the build package's. */
export async function loadBuildCommand(
  command: string,
  file: string,
  exportName: string,
  local: () => Promise<Record<string, unknown>>,
  fromBuildPackage: BuildPackageImporter = importFromBuildPackage,
): Promise<RegisterCommand> {
  const beside = (ext: string): boolean => existsSync(new URL(`./${file}${ext}`, import.meta.url));
  if (beside(".js") || beside(".ts")) return (await local())[exportName] as RegisterCommand;
  try {
    return (await fromBuildPackage(file))[exportName] as RegisterCommand;
  } catch (err) {
    if (isBuildPackageNotFound(err)) throw new BuildPackageMissingError(command);
    throw err;
  }
}
