// The conformance CLI imports fs.globSync (Node 22+) for its results summary, which the
// server scenarios do not use; on Node 20 it resolves `fs` to a copy that adds it.
const shim = new URL("./node20-fs.mjs", import.meta.url).href;
export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/@modelcontextprotocol/conformance/")) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}
