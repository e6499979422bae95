import { readFileSync } from "node:fs";
import type { Manifest } from "../../src/manifest.js";
import { compareDiagnostics, type Diagnostic } from "../diagnostics.js";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { identityWarnings } from "./check-identity-lint.js";
import { retryWarnings } from "./check-retry.js";
import { checkSemantics } from "./check-semantics.js";
import { createSchemaCompiler } from "./schema-compiler.js";
import type { RawToolsFile } from "./raw-types.js";
import { toManifest } from "./to-manifest.js";
import { validateShape } from "./validate-shape.js";
import { parseYamlSource } from "./yaml-source.js";

export type { RawTool, RawToolsFile } from "./raw-types.js";
export { contextSchemaId, schemaId } from "./schema-compiler.js";

/** At most this many problems are reported for one file. */
export const maxDiagnostics = 50;

export interface LoadedToolsFile {
  readonly raw: RawToolsFile;
  readonly manifest: Manifest;
  /** Every tool's input and output schema, compiled under `schemaId(tool, part)`. */
  readonly schemas: Ajv2020;
}

/**
 * tools.yaml text -> checked manifest, or every problem found (capped, sorted by position).
 * Stages: YAML with positions -> file schema -> semantic checks -> normalisation.
 */
export interface LoadResult {
  readonly loaded: LoadedToolsFile | null;
  readonly errors: Diagnostic[];
  /** Problems that do not stop codegen but should be shown (sorted, capped like errors). */
  readonly warnings: Diagnostic[];
}

export function loadToolsSource(source: string, file: string): LoadResult {
  const sorted = (ds: Diagnostic[]) => [...ds].sort(compareDiagnostics).slice(0, maxDiagnostics);
  let warnings: Diagnostic[] = [];
  const fail = (errors: Diagnostic[]) => ({ loaded: null, errors: sorted(errors), warnings });
  const parsed = parseYamlSource(source, file);
  if (parsed.source === null) return fail(parsed.errors);
  const shapeErrors = validateShape(parsed.source);
  if (shapeErrors.length > 0) return fail(shapeErrors);
  const raw = parsed.source.value as RawToolsFile;
  warnings = sorted([...retryWarnings(raw, parsed.source), ...identityWarnings(raw, parsed.source)]);
  const schemas = createSchemaCompiler();
  const semanticErrors = checkSemantics(raw, parsed.source, schemas);
  const { manifest, errors } = toManifest(raw, parsed.source);
  if (semanticErrors.length + errors.length > 0) return fail([...semanticErrors, ...errors]);
  return { loaded: { raw, manifest, schemas }, errors: [], warnings };
}

export function loadToolsFile(path: string, displayName = path): LoadResult {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : (err as Error).message;
    return {
      loaded: null,
      errors: [{ code: "file_unreadable", message: `cannot read ${displayName}: ${reason}`, location: { file: displayName, row: 1, col: 1 }, hint: "pass the path of your tools.yaml with --config" }],
      warnings: [],
    };
  }
  return loadToolsSource(text, displayName);
}
