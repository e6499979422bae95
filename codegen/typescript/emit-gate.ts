import type { RawToolsFile } from "../toolsyaml/index.js";
import { docComment, GeneratedFile } from "./generated-file.js";
import { typeNames } from "./emit-types.js";

const runtimeSurface = "toolgate/generated-runtime";

/**
 * generated/gate.ts: `createGate(runtime)`, one typed call per tool (`gate.tools.<tool>(ctx, args, options)`):
 * arguments checked against `<Tool>Input`, success `value` typed `<Tool>Output`.
 */
export function emitGate(file: RawToolsFile, source: string): GeneratedFile {
  const out = new GeneratedFile("gate.ts", source);
  const tools = Object.keys(file.tools).sort();
  out.importType(runtimeSurface, "GateRuntime", "TypedToolCall");
  out.importValue(runtimeSurface, "typedToolCall");
  out.print("/** One typed call per tool: `(ctx, args, { operation_id, approval_id })` -> the tool's envelope. */", "export interface ToolCalls {");
  for (const name of tools) {
    const tool = file.tools[name];
    if (tool === undefined) continue;
    const t = typeNames(name);
    out.importType("./types.js", t.input, t.output);
    out.print(
      docComment([tool.description, `Effect: ${tool.effect}.`, `@generated from tool: ${name}`], "  "),
      `  readonly ${name}: TypedToolCall<${t.input}, ${t.output}>;`,
    );
  }
  out.print(
    "}",
    "",
    "/** The typed client: `tools` calls through `runtime.call`; `runtime` is the one it was made over (approvals, interrupt...). */",
    "export interface Gate<R extends GateRuntime = GateRuntime> {",
    "  readonly runtime: R;",
    "  readonly tools: ToolCalls;",
    "}",
    "",
    "/** The typed client over a runtime from createRuntime. `runtime.call` stays for dynamic use. */",
    "export function createGate<R extends GateRuntime>(runtime: R): Gate<R> {",
    "  return {",
    "    runtime,",
    "    tools: {",
    ...tools.map((name) => {
      const t = typeNames(name);
      return `      ${name}: typedToolCall<${t.input}, ${t.output}>(runtime, ${JSON.stringify(name)}),`;
    }),
    "    },",
    "  };",
    "}",
  );
  return out;
}
