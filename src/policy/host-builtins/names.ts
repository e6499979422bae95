/**
 * The names under which a compiled module lists its host builtins in `builtins()`.
 *
 * They are namespaced (`toolgate/...`) for two reasons:
 *  - the SDK resolves its OWN builtins before custom ones and ships `sprintf`
 *    (sprintf-js, not Go's fmt) and `regex.split` (JavaScript regexps); a plain
 *    name would silently run the SDK's differing implementation;
 *  - strict and lenient builtin errors need different host functions, because
 *    the SDK passes no context to a custom builtin.
 */
export const HOST_PREFIX = "toolgate/";
/** Prefix for modules compiled with strict builtin errors. */
export const HOST_STRICT_PREFIX = "toolgate/strict/";

/**
 * The key under which the module lists the builtin, i.e. the name the host looks up.
 * Lenient: errors make the call undefined (host returns nothing). Strict: the host
 * throws `eval_builtin_error: <name>: ...` / `eval_type_error: <name>: ...`, which the
 * SDK propagates out of `evaluate()`.
 */
export function hostBuiltinName(name: string, strict: boolean): string {
  return (strict ? HOST_STRICT_PREFIX : HOST_PREFIX) + name;
}

/** Inverse of hostBuiltinName, or null for a name that is not toolgate's. */
export function parseHostBuiltinName(hostName: string): { name: string; strict: boolean } | null {
  if (hostName.startsWith(HOST_STRICT_PREFIX)) return { name: hostName.slice(HOST_STRICT_PREFIX.length), strict: true };
  if (hostName.startsWith(HOST_PREFIX)) return { name: hostName.slice(HOST_PREFIX.length), strict: false };
  return null;
}
