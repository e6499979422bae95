/**
 * Linking generated code with the pre-optimised runtime library at binary level:
 * a builder module over the decoded library (`readRuntime`), the names generated
 * code uses for the library's exports and imports, `linkModule` to splice both
 * into one binary, and the optional binaryen pass over the generated functions.
 */
export { isLinkError, LinkError } from "./bytes.js";
export { KEPT_RUNTIME_EXPORT_NAMES, KEPT_RUNTIME_EXPORTS } from "./kept-exports.js";
export type { KeptRuntimeExport } from "./kept-exports.js";
export { keepWholeRuntime, linkModule, validationError } from "./link.js";
export type { LinkedModule, LinkOptions } from "./link.js";
export { Module } from "./module-builder.js";
export { loadOptimizer, optimizeGenerated, optimizerLoaded } from "./optimize.js";
export { RUNTIME_WASM_FILE, runtimeBytes, useRuntimeBytes } from "./runtime-bytes.js";
export {
  appendStaticData,
  exportedName,
  finishHeapBase,
  importedFunction,
  readRuntime,
  replaceImport,
  runtimeHasGlobal,
  setGlobalInit,
  staticDataStart,
} from "./runtime-symbols.js";
