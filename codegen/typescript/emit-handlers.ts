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
  const withContext = tools.filter((n) => Object.keys(file.tools[n]?.context ?? {}).length > 0);
  out.print(
    "",
    "/** The host's resolvers of every declared context fact (createRuntime({ context })); each runs right before every decision. */",
    withContext.length === 0 ? "export type ToolContextResolvers = Record<never, never>;" : "export interface ToolContextResolvers {",
  );
  if (withContext.length > 0) out.importType(runtimeSurface, "ContextResolver");
  for (const name of withContext) {
    const t = typeNames(name);
    out.importType("./types.js", t.context);
    out.print(`  /** @generated from tool: ${name} (context) */`, `  readonly ${name}: { readonly [F in keyof ${t.context}]-?: ContextResolver<${t.input}, ${t.context}[F]> };`);
  }
  if (withContext.length > 0) out.print("}");
  return out;
}
