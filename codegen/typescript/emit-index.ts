import { GeneratedFile } from "./generated-file.js";

/** generated/index.ts: the barrel the application imports. */
export function emitIndex(source: string): GeneratedFile {
  const out = new GeneratedFile("index.ts", source);
  out.print(
    'export * from "./types.js";',
    'export type { ToolContextResolvers, ToolHandlers, ToolName, ToolReconcilers } from "./handlers.js";',
    'export { createGate } from "./gate.js";',
    'export type { Gate, ToolCalls } from "./gate.js";',
    'export { manifest } from "./manifest.js";',
    'export { policyBuiltins } from "./policy-builtins.js";',
    'export { validators } from "./validators.js";',
  );
  return out;
}
