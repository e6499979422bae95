/**
 * Type-checks TypeScript text the way a project that installed toolgate does: every public
 * entry of package.json `exports` resolves to its source (`toolgate/x` -> src/...ts), and
 * `./generated/` is this repository's generated code. Only the package's public entries
 * resolve: a deep import such as `toolgate/src/...` is an error, as it is for a consumer.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { repoRoot } from "./repo.js";

export interface TypeProblem {
  readonly file: string;
  readonly line: number;
  readonly code: number;
  readonly message: string;
}

/** `toolgate`, `toolgate/evals`, ... -> the source file of each public entry. */
function publicEntryPaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { exports: Record<string, unknown> };
  const paths: Record<string, string[]> = {};
  for (const [entry, target] of Object.entries(pkg.exports)) {
    const types = typeof target === "object" && target !== null ? (target as { types?: unknown }).types : undefined;
    if (typeof types !== "string") continue;
    const source = types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts");
    paths[entry === "." ? "toolgate" : `toolgate/${entry.slice(2)}`] = [join(repoRoot, source)];
  }
  return paths;
}

/**
 * Writes `files` (name -> text) into a fresh folder inside the repository (so third-party
 * packages resolve from its node_modules), with `generated/` linked to the repository's,
 * and returns the problems tsc reports in those files.
 */
export function typecheckFiles(files: Readonly<Record<string, string>>): TypeProblem[] {
  const base = join(repoRoot, "test", ".typecheck");
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, "t-"));
  try {
    symlinkSync(join(repoRoot, "generated"), join(dir, "generated"), "dir");
    const roots = Object.entries(files).map(([name, text]) => {
      const file = join(dir, name);
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, text);
      return file;
    });
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      // As the starter's tsconfig (src/cli/init-project.ts): DOM for the frameworks' fetch types.
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
      noEmit: true,
      types: ["node"],
      paths: publicEntryPaths(),
    };
    const program = ts.createProgram(roots, options);
    const inDir = (f: ts.SourceFile | undefined): f is ts.SourceFile => f !== undefined && !relative(dir, f.fileName).startsWith("..");
    return ts.getPreEmitDiagnostics(program).flatMap((d) => {
      if (!inDir(d.file)) return [];
      const { line } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
      return [{ file: relative(dir, d.file.fileName), line: line + 1, code: d.code, message: ts.flattenDiagnosticMessageText(d.messageText, "\n") }];
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
