/**
 * How the emitter names host builtins in a module's `builtins()` map. Which builtins
 * run on the host is the registry's business (src/policy/builtins); the calling
 * protocol is in codegen/plan/NOTE-host-builtins.md.
 */
export { HOST_PREFIX, HOST_STRICT_PREFIX, hostBuiltinName, parseHostBuiltinName } from "../../src/policy/host-builtins/names.js";
