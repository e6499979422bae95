import type { RawToolsFile } from "../toolsyaml/index.js";
import { docComment, GeneratedFile } from "./generated-file.js";
import { typeNames } from "./emit-types.js";

const runtimeSurface = "toolgate/generated-runtime";

/** generated/handlers.ts: ToolName, ToolHandlers (one strictly typed handler per tool), ToolReconcilers. */
export function emitHandlers(file: RawToolsFile, source: string): GeneratedFile {
  const out = new GeneratedFile("handlers.ts", source);
  const tools = Object.keys(file.tools).sort();
  out.importType(runtimeSurface, "ToolHandler", "ToolReconciler");
  out.print(
    "/** Every declared tool name. */",
    `export type ToolName = ${tools.map((t) => JSON.stringify(t)).join(" | ")};`,
    "",
    "/** The application implements one handler per tool; arguments arrive validated. */",
    "export interface ToolHandlers {",
  );
  for (const name of tools) {
    const tool = file.tools[name];
    if (tool === undefined) continue;
    const t = typeNames(name);
    out.importType("./types.js", t.input, t.output, t.failure);
    out.print(
      docComment([tool.description, `Effect: ${tool.effect}.`, `@generated from tool: ${name}`], "  "),
      `  readonly ${name}: ToolHandler<${t.input}, ${t.output}, ${t.failure}>;`,
    );
  }
  out.print(
    "}",
    "",
    "/** Optional per-tool readers of observed state, used to reconcile an operation whose outcome is unknown. */",
    "export interface ToolReconcilers {",
  );
  for (const name of tools) {
    const tool = file.tools[name];
    if (tool === undefined || tool.effect === "read") continue;
    const t = typeNames(name);
    out.print(`  /** @generated from tool: ${name} */`, `  readonly ${name}?: ToolReconciler<${t.input}, ${t.output}, ${t.failure}>;`);
  }
  out.print("}");
  return out;
}
