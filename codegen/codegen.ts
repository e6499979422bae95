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

export type CodegenResult =
  | { readonly kind: "errors"; readonly errors: Diagnostic[] }
  | { readonly kind: "written"; readonly files: string[] }
  | { readonly kind: "up_to_date"; readonly files: string[] }
  | { readonly kind: "stale"; readonly files: string[] };

/** `toolgate codegen`: tools.yaml -> generated/ (or, with check, which generated files are stale). */
export async function runCodegen(options: CodegenOptions): Promise<CodegenResult> {
  const display = relative(process.cwd(), options.config) || options.config;
  const { loaded, errors } = loadToolsFile(options.config, display);
  if (loaded === null) return { kind: "errors", errors };
  const files = await generateTypeScript(loaded, display);
  if (options.check) {
    const stale = staleFiles(options.out, files);
    return stale.length > 0 ? { kind: "stale", files: stale } : { kind: "up_to_date", files: [...files.keys()] };
  }
  return { kind: "written", files: writeFiles(options.out, files) };
}
