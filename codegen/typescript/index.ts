import type { LoadedToolsFile } from "../toolsyaml/index.js";
import { emitGate } from "./emit-gate.js";
import { emitHandlers } from "./emit-handlers.js";
import { emitIndex } from "./emit-index.js";
import { emitManifest } from "./emit-manifest.js";
import { emitPolicyBuiltins } from "./emit-policy-builtins.js";
import { emitTypes } from "./emit-types.js";
import { emitValidators } from "./emit-validators.js";

export { fileHeader } from "./generated-file.js";

/**
 * The files `toolgate codegen` writes, relative to the output folder -> content. Deterministic.
 * `outDir` (default `generated`) is where they go: imports of the project's own modules are relative to it.
 */
export async function generateTypeScript(loaded: LoadedToolsFile, source = "tools.yaml", outDir = "generated"): Promise<Map<string, string>> {
  const files = [
    await emitTypes(loaded.raw, source),
    emitHandlers(loaded.raw, source),
    emitGate(loaded.raw, source),
    ...emitValidators(loaded, source),
    emitManifest(loaded.manifest, source),
    emitPolicyBuiltins(loaded.policyBuiltins, outDir, source),
    emitIndex(source),
  ];
  return new Map(files.map((f) => [f.path, f.render()]));
}
