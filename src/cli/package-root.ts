import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The names of toolgate's package.json: the runtime package (and the repository) and the build package. */
const toolgatePackageNames: ReadonlySet<unknown> = new Set(["toolgate", "@toolgate/build"]);

/**
 * The folder of toolgate's own package.json: the repository root when running from
 * sources, the installed package (runtime or build) when running from dist/. Found by
 * walking up, so the same code works at both depths.
 */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && toolgatePackageNames.has((JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name)) return dir;
    if (dirname(dir) === dir) throw new Error(`toolgate's package.json not found above ${from}`);
  }
}
