/**
 * Imports a project's module by path (generated/index.ts, handlers, custom builtins,
 * eval suites). The installed CLI is plain JavaScript on plain node: a TypeScript module
 * that node cannot load itself is loaded through the project's own tsx (the starter
 * installs it), registered on first need. Without tsx the error names the file and the
 * two ways out (install tsx, or compile the project and pass the .js).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** A TypeScript module the CLI cannot load: no tsx in the project or beside toolgate. */
export class UserModuleError extends Error {
  override name = "UserModuleError";
  readonly code = "typescript_needs_tsx";
  readonly hint = "`npm install -D tsx` in the project (the starter has it), or compile the project (`npx tsc`) and pass the compiled .js (e.g. --generated dist/generated)";
  constructor(
    readonly file: string,
    projectDir: string,
  ) {
    super(`${file} is TypeScript, which node ${process.version} cannot load without tsx, and tsx is not installed (neither in ${projectDir} nor beside toolgate)`);
  }
}

export const isUserModuleError = (e: unknown): e is UserModuleError => e instanceof Error && e.name === "UserModuleError";

interface TsxApi {
  register(): unknown;
}

export interface ImportUserModuleOptions {
  /** Where the project's node_modules are looked for (default: the working directory). */
  readonly projectDir?: string;
  /** Finds tsx's ESM API (default: the project's tsx, else one toolgate itself can import). */
  readonly loadTsx?: (projectDir: string) => Promise<TsxApi | null>;
}

const isTypeScript = (path: string): boolean => /\.[cm]?tsx?$/.test(path);

// What node answers for a .ts module it cannot run: no loader for the extension (node 20),
// or, where it strips types itself, a `./x.js` import that only exists as x.ts.
const TS_LOAD_FAILURES = new Set(["ERR_UNKNOWN_FILE_EXTENSION", "ERR_MODULE_NOT_FOUND", "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING", "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX"]);

/** The ESM entry of the project's tsx/esm/api (require.resolve would give the CommonJS one, whose register() does not work from here). */
function projectTsxEntry(projectDir: string): string {
  const pkgFile = createRequire(join(resolve(projectDir), "package.json")).resolve("tsx/package.json");
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as { exports?: Record<string, { import?: string | { default?: string } }> };
  const entry = pkg.exports?.["./esm/api"]?.import;
  const file = typeof entry === "string" ? entry : entry?.default;
  if (file === undefined) throw new Error(`${pkgFile}: no ESM entry for tsx/esm/api`);
  return join(dirname(pkgFile), file);
}

async function defaultTsx(projectDir: string): Promise<TsxApi | null> {
  try {
    // The project's own tsx, wherever its package manager put it.
    return (await import(pathToFileURL(projectTsxEntry(projectDir)).href)) as TsxApi;
  } catch {
    return (await import("tsx/esm/api").catch(() => null)) as TsxApi | null;
  }
}

let registered = false;

export async function importUserModule(path: string, opts: ImportUserModuleOptions = {}): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (err) {
    if (!isTypeScript(path) || !TS_LOAD_FAILURES.has(String((err as { code?: unknown }).code))) throw err;
  }
  if (!registered) {
    const projectDir = opts.projectDir ?? process.cwd();
    const tsx = await (opts.loadTsx ?? defaultTsx)(projectDir);
    if (tsx === null || typeof tsx.register !== "function") {
      throw new UserModuleError(path, resolve(projectDir));
    }
    tsx.register();
    registered = true;
  }
  // A failed import stays cached under its URL: load it again under another one.
  return (await import(`${pathToFileURL(resolve(path)).href}?tsx`)) as Record<string, unknown>;
}
