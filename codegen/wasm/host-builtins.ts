/**
 * Builtins that run on the host (JavaScript) instead of in the runtime library.
 *
 * The emitter reads this table: a call to a builtin that is NOT native
 * (`runtime-builtins.ts` wins when both list a name) but IS listed here goes
 * through `env.opa_builtin<arity>(id, ctx, args...)`, with the builtin listed in
 * the module's `builtins()` map under `hostBuiltinName(name, strict)`.
 *
 * The host names are namespaced (`toolgate/...`) for two reasons:
 *  - the SDK resolves its OWN builtins before custom ones and ships `sprintf`
 *    (sprintf-js, not Go's fmt) and `regex.split` (JavaScript regexps); a plain
 *    name would silently run the SDK's differing implementation;
 *  - strict and lenient builtin errors need different host functions, because
 *    the SDK passes no context to a custom builtin (see strict below).
 *
 * Implementations: `src/policy/host-builtins/` (`hostBuiltins`, passed to
 * `loadPolicy(wasm, memory, hostBuiltins)`); a test keeps both lists equal.
 * Protocol details (load-time probe, time.now_ns caching): codegen/plan/NOTE-host-builtins.md.
 */

export interface HostBuiltin {
  /** OPA's builtin name. */
  readonly name: string;
  /** Number of operands; the emitter imports `env.opa_builtin<arity>`. */
  readonly arity: number;
}

const table: readonly HostBuiltin[] = [
  { name: "regex.match", arity: 2 },
  { name: "regex.is_valid", arity: 1 },
  { name: "regex.find_n", arity: 3 },
  { name: "regex.find_all_string_submatch_n", arity: 3 },
  { name: "regex.split", arity: 2 },
  { name: "regex.replace", arity: 3 },
  { name: "regex.globs_match", arity: 2 },
  { name: "glob.match", arity: 3 },
  { name: "glob.quote_meta", arity: 1 },
  { name: "time.now_ns", arity: 0 },
  { name: "time.parse_rfc3339_ns", arity: 1 },
  { name: "time.parse_ns", arity: 2 },
  { name: "time.parse_duration_ns", arity: 1 },
  { name: "time.format", arity: 1 },
  { name: "time.add_date", arity: 4 },
  { name: "time.date", arity: 1 },
  { name: "time.clock", arity: 1 },
  { name: "time.weekday", arity: 1 },
  { name: "time.diff", arity: 2 },
  { name: "net.cidr_contains", arity: 2 },
  { name: "net.cidr_intersects", arity: 2 },
  { name: "net.cidr_is_valid", arity: 1 },
  { name: "units.parse_bytes", arity: 1 },
  { name: "units.parse", arity: 1 },
  { name: "sprintf", arity: 2 },
  { name: "strings.any_prefix_match", arity: 2 },
  { name: "strings.any_suffix_match", arity: 2 },
  { name: "strings.count", arity: 2 },
  { name: "indexof_n", arity: 2 },
  { name: "trace", arity: 1 },
  { name: "crypto.md5", arity: 1 },
  { name: "crypto.sha1", arity: 1 },
  { name: "crypto.sha256", arity: 1 },
  { name: "crypto.hmac.md5", arity: 2 },
  { name: "crypto.hmac.sha1", arity: 2 },
  { name: "crypto.hmac.sha256", arity: 2 },
  { name: "crypto.hmac.sha512", arity: 2 },
  { name: "crypto.hmac.equal", arity: 2 },
  { name: "semver.is_valid", arity: 1 },
  { name: "semver.compare", arity: 2 },
  { name: "bits.or", arity: 2 },
  { name: "bits.and", arity: 2 },
  { name: "bits.xor", arity: 2 },
  { name: "bits.lsh", arity: 2 },
  { name: "bits.rsh", arity: 2 },
  { name: "bits.negate", arity: 1 },
  { name: "io.jwt.decode", arity: 1 },
  { name: "rand.intn", arity: 2 },
  { name: "uuid.rfc4122", arity: 1 },
  { name: "uuid.parse", arity: 1 },
  { name: "json.filter", arity: 2 },
  { name: "json.remove", arity: 2 },
  { name: "json.patch", arity: 2 },
  { name: "io.jwt.verify_hs256", arity: 2 },
  { name: "io.jwt.verify_hs384", arity: 2 },
  { name: "io.jwt.verify_hs512", arity: 2 },
  { name: "io.jwt.verify_rs256", arity: 2 },
  { name: "io.jwt.verify_rs384", arity: 2 },
  { name: "io.jwt.verify_rs512", arity: 2 },
  { name: "io.jwt.verify_ps256", arity: 2 },
  { name: "io.jwt.verify_ps384", arity: 2 },
  { name: "io.jwt.verify_ps512", arity: 2 },
  { name: "io.jwt.verify_es256", arity: 2 },
  { name: "io.jwt.verify_es384", arity: 2 },
  { name: "io.jwt.verify_es512", arity: 2 },
  { name: "io.jwt.verify_eddsa", arity: 2 },
  { name: "io.jwt.decode_verify", arity: 2 },
  { name: "strings.render_template", arity: 2 },
];

/** Rego name -> entry. */
export const HOST_BUILTINS: ReadonlyMap<string, HostBuiltin> = new Map(table.map((b) => [b.name, b]));

export function isHostBuiltin(name: string): boolean {
  return HOST_BUILTINS.has(name);
}

/** Prefix of every host builtin name in a module's `builtins()` map. */
export const HOST_PREFIX = "toolgate/";
/** Prefix for modules compiled with strict builtin errors. */
export const HOST_STRICT_PREFIX = "toolgate/strict/";

/**
 * The key under which the module lists the builtin in `builtins()`, i.e. the name
 * the host looks up. Lenient: errors make the call undefined (host returns
 * nothing). Strict: the host throws `eval_builtin_error: <name>: ...` /
 * `eval_type_error: <name>: ...`, which the SDK propagates out of `evaluate()`.
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
