import { Ajv2020 } from "ajv/dist/2020.js";
import { _ } from "ajv";
import addFormatsModule from "ajv-formats";
import standaloneModule from "ajv/dist/standalone/index.js";
import type { RawToolsFile } from "../toolsyaml/index.js";
import { GeneratedFile } from "./generated-file.js";

// Both packages are CommonJS with a `default` export; under NodeNext the default import is the module object.
type StandaloneCode = (ajv: Ajv2020, refsOrFunc: Record<string, string>) => string;
type AddFormats = (ajv: Ajv2020) => unknown;
const interopDefault = <T>(mod: unknown): T => ((mod as { default?: T }).default ?? mod) as T;
const standaloneCode = interopDefault<StandaloneCode>(standaloneModule);
const addFormats = interopDefault<AddFormats>(addFormatsModule);

const exportName = (tool: string, part: string) => `${tool}__${part}`;

/**
 * generated/validators.js (+ .d.ts): ajv standalone validators as an ES module, so no
 * schema is compiled at start-up.
 */
export function emitValidators(file: RawToolsFile, source: string): GeneratedFile[] {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    code: { source: true, esm: true, lines: true, formats: _`require("ajv-formats/dist/formats").fullFormats` },
  });
  addFormats(ajv);
  const tools = Object.keys(file.tools).sort();
  const mapping: Record<string, string> = {};
  for (const name of tools) {
    const tool = file.tools[name];
    if (tool === undefined) continue;
    for (const part of ["input", "output"] as const) {
      const id = `toolgate:${name}/${part}`;
      ajv.addSchema(tool[part] as object, id);
      mapping[exportName(name, part)] = id;
    }
  }
  const js = new GeneratedFile("validators.js", source);
  js.print(esmRequires(standaloneCode(ajv, mapping)).replace(/^"use strict";\n/m, ""), "");
  js.print(
    "/** Input and output validator of every tool. */",
    "export const validators = {",
    ...tools.map((t) => `  ${t}: { input: ${exportName(t, "input")}, output: ${exportName(t, "output")} },`),
    "};",
  );
  const dts = new GeneratedFile("validators.d.ts", source);
  dts.importType("toolgate/generated-runtime", "StandaloneValidator");
  dts.importType("./handlers.js", "ToolName");
  dts.print(
    "/** Input and output validator of every tool. @generated from tools.yaml */",
    "export declare const validators: Readonly<Record<ToolName, { readonly input: StandaloneValidator; readonly output: StandaloneValidator }>>;",
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
