import { relative } from "node:path";
import type { Diagnostic } from "./diagnostics.js";
import { staleFiles, writeFiles } from "./output-files.js";
import { loadToolsFile } from "./toolsyaml/index.js";
import { generateTypeScript } from "./typescript/index.js";

export interface CodegenOptions {
  readonly config: string;
  readonly out: string;
  readonly check: boolean;
}

/** Every result carries the loader's warnings (they never fail codegen). */
export type CodegenResult = { readonly warnings: Diagnostic[] } & (
  | { readonly kind: "errors"; readonly errors: Diagnostic[] }
  | { readonly kind: "written"; readonly files: string[] }
  | { readonly kind: "up_to_date"; readonly files: string[] }
  | { readonly kind: "stale"; readonly files: string[] }
);

/** `toolgate codegen`: tools.yaml -> generated/ (or, with check, which generated files are stale). */
export async function runCodegen(options: CodegenOptions): Promise<CodegenResult> {
  const display = relative(process.cwd(), options.config) || options.config;
  const { loaded, errors, warnings } = loadToolsFile(options.config, display);
  if (loaded === null) return { kind: "errors", errors, warnings };
  const files = await generateTypeScript(loaded, display, options.out);
  if (options.check) {
    const stale = staleFiles(options.out, files);
    return stale.length > 0 ? { kind: "stale", files: stale, warnings } : { kind: "up_to_date", files: [...files.keys()], warnings };
  }
  return { kind: "written", files: writeFiles(options.out, files), warnings };
}
