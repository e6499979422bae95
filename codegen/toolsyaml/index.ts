import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Manifest } from "../../src/manifest.js";
import { compareDiagnostics, type Diagnostic } from "../diagnostics.js";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { identityWarnings } from "./check-identity-lint.js";
import { retryWarnings } from "./check-retry.js";
import { checkSemantics } from "./check-semantics.js";
import { checkPolicyBuiltinsExists, policyBuiltinsRef, type PolicyBuiltinsRef } from "./policy-builtins.js";
import { createSchemaCompiler } from "./schema-compiler.js";
import type { RawTool, RawToolsFile } from "./raw-types.js";
import { toManifest } from "./to-manifest.js";
import { validateShape } from "./validate-shape.js";
import { parseYamlSource } from "./yaml-source.js";

export type { RawTool, RawToolsFile } from "./raw-types.js";
export { contextSchemaId, schemaId } from "./schema-compiler.js";
export type { PolicyBuiltinsRef } from "./policy-builtins.js";

/** At most this many problems are reported for one file. */
export const maxDiagnostics = 50;

export interface LoadedToolsFile {
  readonly raw: RawToolsFile;
  readonly manifest: Manifest;
  /** Every tool's input and output schema, compiled under `schemaId(tool, part)`. */
  readonly schemas: Ajv2020;
  /** `policy.builtins`, resolved; null when not set. */
  readonly policyBuiltins: PolicyBuiltinsRef | null;
}

export interface LoadResult {
  readonly loaded: LoadedToolsFile | null;
  readonly errors: Diagnostic[];
  /** Problems that do not stop codegen but should be shown (sorted, capped like errors). */
  readonly warnings: Diagnostic[];
}

/**
 * tools.yaml text -> checked manifest, or every problem found (capped, sorted by position).
 * Stages: YAML with positions -> file schema -> semantic checks -> normalisation. Each
 * stage reports what it can: duplicate keys do not stop the schema check, and a tool with
 * schema problems is left out of the semantic checks (they assume its shape) while every
 * other tool is still checked. Only problems outside `tools` (the file's own shape) stop
 * the later stages.
 */
export function loadToolsSource(source: string, file: string, baseDir = dirname(file)): LoadResult {
  const sorted = (ds: Diagnostic[]) => [...ds].sort(compareDiagnostics).slice(0, maxDiagnostics);
  let warnings: Diagnostic[] = [];
  const fail = (errors: Diagnostic[]) => ({ loaded: null, errors: sorted(errors), warnings });
  const parsed = parseYamlSource(source, file);
  if (parsed.source === null) return fail(parsed.errors);
  const shape = validateShape(parsed.source);
  const errors = [...parsed.errors, ...shape.errors];
  if (shape.fileBroken) return fail(errors);
  const raw = withoutTools(parsed.source.value as RawToolsFile, shape.brokenTools);
  warnings = sorted([...retryWarnings(raw, parsed.source), ...identityWarnings(raw, parsed.source)]);
  const schemas = createSchemaCompiler();
  errors.push(...checkSemantics(raw, parsed.source, schemas));
  const normalised = toManifest(raw, parsed.source);
  errors.push(...normalised.errors);
  if (errors.length > 0) return fail(errors);
  const policyBuiltins = policyBuiltinsRef(raw, parsed.source, baseDir);
  return { loaded: { raw, manifest: normalised.manifest, schemas, policyBuiltins }, errors: [], warnings };
}

/** The file without the named tools (a compensation naming one of them is not judged: its target is broken). */
function withoutTools(file: RawToolsFile, names: ReadonlySet<string>): RawToolsFile {
  if (names.size === 0) return file;
  const tools: Record<string, RawTool> = {};
  for (const [name, tool] of Object.entries(file.tools)) {
    if (names.has(name)) continue;
    tools[name] = tool.compensation !== undefined && names.has(tool.compensation) ? withoutCompensation(tool) : tool;
  }
  return { ...file, tools };
}

function withoutCompensation(tool: RawTool): RawTool {
  const { compensation: _broken, ...rest } = tool;
  return rest;
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
  const r = loadToolsSource(text, displayName, dirname(path));
  const missing = checkPolicyBuiltinsExists(r.loaded?.policyBuiltins ?? null);
  return missing.length === 0 ? r : { loaded: null, errors: missing, warnings: r.warnings };
}
