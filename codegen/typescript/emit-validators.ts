import type { Ajv2020 } from "ajv/dist/2020.js";
import standaloneModule from "ajv/dist/standalone/index.js";
import { contextSchemaId, schemaId, type LoadedToolsFile } from "../toolsyaml/index.js";
import { GeneratedFile } from "./generated-file.js";

// ajv's standalone module is CommonJS with a `default` export; under NodeNext the default import is the module object.
type StandaloneCode = (ajv: Ajv2020, refsOrFunc: Record<string, string>) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ?? standaloneModule) as StandaloneCode;

const exportName = (tool: string, part: string) => `${tool}__${part}`;
const contextExportName = (tool: string, fact: string) => `${tool}__context__${fact}`;

/**
 * generated/validators.js (+ .d.ts): ajv standalone validators as an ES module, so no
 * schema is compiled at start-up.
 */
export function emitValidators(loaded: LoadedToolsFile, source: string): GeneratedFile[] {
  // The loader already compiled every schema into `loaded.schemas`; standalone output reuses them.
  const tools = Object.keys(loaded.raw.tools).sort();
  const mapping: Record<string, string> = {};
  const facts = (tool: string): string[] => Object.keys(loaded.raw.tools[tool]?.context ?? {}).sort();
  for (const name of tools) {
    for (const part of ["input", "output"] as const) mapping[exportName(name, part)] = schemaId(name, part);
    for (const fact of facts(name)) mapping[contextExportName(name, fact)] = contextSchemaId(name, fact);
  }
  const contextPart = (t: string): string =>
    facts(t).length === 0 ? "" : `, context: { ${facts(t).map((f) => `${f}: ${contextExportName(t, f)}`).join(", ")} }`;
  const js = new GeneratedFile("validators.js", source);
  js.print(esmRequires(standaloneCode(loaded.schemas, mapping)).replace(/^"use strict";\n/m, ""), "");
  js.print(
    "/** Input and output validator of every tool. */",
    "export const validators = {",
    ...tools.map((t) => `  ${t}: { input: ${exportName(t, "input")}, output: ${exportName(t, "output")}${contextPart(t)} },`),
    "};",
  );
  const dts = new GeneratedFile("validators.d.ts", source);
  dts.importType("toolgate/generated-runtime", "StandaloneValidator");
  dts.importType("./handlers.js", "ToolName");
  dts.print(
    "/** Input and output validator of every tool. @generated from tools.yaml */",
    "export declare const validators: Readonly<Record<ToolName, { readonly input: StandaloneValidator; readonly output: StandaloneValidator; readonly context?: Readonly<Record<string, StandaloneValidator>> }>>;",
  );
  return [js, dts];
}

/**
 * ajv's ESM output still uses require() for its runtime helpers. Give the module a real
 * require: import interop of those CommonJS helpers differs between Node, tsx and vite.
 */
function esmRequires(code: string): string {
  if (!code.includes("require(")) return code;
  return `import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\n${code}`;
}
