/**
 * `toolgate init`: writes a working starter project into a folder. The files come from
 * the package's templates/ and from its shipped policies/, so a new project starts with
 * exactly the rules this version of toolgate ships.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { toolgateVersion } from "../version.js";
import { packageRoot } from "./package-root.js";

/** Template folders copied, in order; a new scaffold is one more entry. */
export const scaffolds: readonly string[] = ["project", "evals"];

/** What `npm init` and `npm install toolgate` leave: such a folder counts as empty. */
const npmProjectFiles = new Set(["package.json", "package-lock.json", "node_modules", ".git", ".npmrc"]);

export interface InitOptions {
  readonly dir: string;
  /**
   * Write into a non-empty folder, replacing files of the same name. Not needed for a
   * folder that holds only what `npm init` / `npm install` leave (package.json is merged).
   */
  readonly force?: boolean;
}

export type InitResult =
  | { readonly kind: "written"; readonly files: readonly string[] }
  | { readonly kind: "not_empty"; readonly entries: readonly string[] }
  | { readonly kind: "not_a_directory" };

/** Versions the starter's development tools are pinned to (the ones toolgate is built with). */
const devTools = { "@types/node": "^20.19.0", tsx: "^4.20.0", typescript: "^5.9.0" };

export function initProject(opts: InitOptions): InitResult {
  if (existsSync(opts.dir)) {
    if (!statSync(opts.dir).isDirectory()) return { kind: "not_a_directory" };
    const entries = readdirSync(opts.dir).filter((e) => !npmProjectFiles.has(e)).sort();
    if (entries.length > 0 && opts.force !== true) return { kind: "not_empty", entries };
  }
  mkdirSync(opts.dir, { recursive: true });
  const root = packageRoot();
  const written: string[] = [];
  const write = (file: string, text: string): void => {
    const to = join(opts.dir, file);
    mkdirSync(join(to, ".."), { recursive: true });
    writeFileSync(to, text);
    written.push(file);
  };
  for (const scaffold of scaffolds) {
    const from = join(root, "templates", scaffold);
    cpSync(from, opts.dir, { recursive: true, force: true });
    written.push(...listFiles(from).map((f) => relative(from, f)));
  }
  for (const file of ["authz.rego", "authz_test.rego"]) {
    cpSync(join(root, "policies", file), join(opts.dir, "policies", file));
    written.push(`policies/${file}`);
  }
  const existing = join(opts.dir, "package.json");
  const pkg = existsSync(existing) ? mergePackageJson(readJsonObject(existing), starterPackageJson()) : starterPackageJson();
  write("package.json", `${JSON.stringify(pkg, null, 2)}\n`);
  write("tsconfig.json", `${JSON.stringify(starterTsconfig, null, 2)}\n`);
  write(".gitignore", "node_modules/\ndist/\n*.db\n*.db-wal\n*.db-shm\n");
  return { kind: "written", files: written.sort() };
}

function starterPackageJson(): Record<string, unknown> {
  return {
    name: "my-toolgate-project",
    version: "0.1.0",
    private: true,
    type: "module",
    scripts: {
      codegen: "toolgate codegen",
      build: "toolgate codegen && toolgate build",
      test: "toolgate test",
      typecheck: "tsc --noEmit",
      compile: "tsc",
      start: "tsx src/main.ts",
      // The suite against your handlers with the scripted agent: offline, no model (CI).
      eval: "toolgate agent-eval evals/ --agent scripted --surface evals/surface.ts --min-intent 1 --min-failure 1",
      // The same suite with a model (evals/agent.ts: a local OpenAI-compatible endpoint).
      "eval:model": "toolgate agent-eval evals/ --agent evals/agent.ts --surface evals/surface.ts --min-intent 0.9 --min-failure 0.9",
    },
    dependencies: { toolgate: `^${toolgateVersion}` },
    devDependencies: devTools,
  };
}

type JsonRecord = Record<string, unknown>;

function readJsonObject(file: string): JsonRecord {
  try {
    const v: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return v as JsonRecord;
  } catch {
    // Unreadable: replaced by the starter's package.json below.
  }
  return {};
}

const asRecord = (v: unknown): JsonRecord => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonRecord) : {});

/**
 * Adds the starter's scripts and dependencies to an existing package.json without
 * replacing what is there (a toolgate dependency already installed keeps its spec).
 * `type: module` is set because the generated code and main.ts are ES modules.
 */
export function mergePackageJson(existing: JsonRecord, starter: JsonRecord): JsonRecord {
  const out: JsonRecord = { ...starter, ...existing, type: "module" };
  for (const key of ["scripts", "dependencies", "devDependencies"]) {
    out[key] = { ...asRecord(starter[key]), ...asRecord(existing[key]) };
  }
  // `npm init` writes a failing placeholder test script; the starter's test replaces it.
  const scripts = asRecord(out["scripts"]);
  if (typeof scripts["test"] === "string" && scripts["test"].includes("no test specified")) scripts["test"] = asRecord(starter["scripts"])["test"];
  return out;
}

const starterTsconfig = {
  compilerOptions: {
    target: "ES2022",
    // DOM: the agent frameworks' declarations (ai, @openai/agents, langchain) name fetch types
    // such as HeadersInit; without exactOptionalPropertyTypes, which their declarations are not
    // written for, they type-check with skipLibCheck false.
    lib: ["ES2023", "DOM"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    verbatimModuleSyntax: true,
    skipLibCheck: false,
    types: ["node"],
    // `npm run compile` emits plain JavaScript to dist/ for `node dist/src/main.js`;
    // allowJs carries the generated validators (JavaScript) along.
    allowJs: true,
    rootDir: ".",
    outDir: "dist",
  },
  include: ["src", "generated"],
};

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)],
  );
}
