import type { Manifest } from "../../src/manifest.js";
import { GeneratedFile } from "./generated-file.js";

/** generated/manifest.ts: the normalised tool manifest the runtime and the policy input read. */
export function emitManifest(manifest: Manifest, source: string): GeneratedFile {
  const out = new GeneratedFile("manifest.ts", source);
  out.importType("toolgate/generated-runtime", "Manifest");
  out.print(
    `/** The tool manifest. @generated from ${source} */`,
    `export const manifest: Manifest = ${JSON.stringify(manifest, null, 2)};`,
  );
  return out;
}
