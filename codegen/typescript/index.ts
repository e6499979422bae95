import type { LoadedToolsFile } from "../toolsyaml/index.js";
import { emitHandlers } from "./emit-handlers.js";
import { emitIndex } from "./emit-index.js";
import { emitManifest } from "./emit-manifest.js";
import { emitTypes } from "./emit-types.js";
import { emitValidators } from "./emit-validators.js";

export { fileHeader } from "./generated-file.js";

/** The files `toolgate codegen` writes, relative to the output folder -> content. Deterministic. */
export async function generateTypeScript(loaded: LoadedToolsFile, source = "tools.yaml"): Promise<Map<string, string>> {
  const files = [
    await emitTypes(loaded.raw, source),
    emitHandlers(loaded.raw, source),
    ...emitValidators(loaded, source),
    emitManifest(loaded.manifest, source),
    emitIndex(source),
  ];
  return new Map(files.map((f) => [f.path, f.render()]));
}
