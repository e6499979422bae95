/** Finds `.rego` files under the paths a command was given (files as-is, folders recursively). */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export class PathError extends Error {
  override name = "PathError";
}
export const isPathError = (e: unknown): e is PathError => e instanceof Error && e.name === "PathError";

/** Sorted, de-duplicated; hidden folders and node_modules are not entered. */
export function findRegoFiles(paths: readonly string[], keep: (file: string) => boolean = () => true): string[] {
  const out = new Set<string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith(".") || name === "node_modules") continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".rego") && keep(full)) out.add(full);
    }
  };
  for (const p of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      throw new PathError(`${p}: no such file or directory`);
    }
    if (isDir) walk(p);
    else out.add(p);
  }
  return [...out].sort();
}
