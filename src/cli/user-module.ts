/**
 * Imports a user's module by path. The installed CLI is plain JavaScript: a TypeScript
 * module is loaded through the project's own tsx (the starter has it), registered on
 * first need.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

export async function importUserModule(path: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (err) {
    if ((err as { code?: unknown }).code !== "ERR_UNKNOWN_FILE_EXTENSION" || !/\.[cm]?tsx?$/.test(path)) throw err;
    const tsx = await import("tsx/esm/api").catch(() => null);
    if (tsx === null) throw new Error("is TypeScript and tsx is not installed: `npm install -D tsx`, or pass a .js / .mjs module");
    tsx.register();
    // A failed import stays cached under its URL: load it again under another one.
    return (await import(`${pathToFileURL(resolve(path)).href}?tsx`)) as Record<string, unknown>;
  }
}
