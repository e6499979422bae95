/**
 * toolgate's host builtins: the JavaScript side of the builtins a compiled policy
 * delegates through `opa_builtinN`. Which builtins they are, and their
 * implementations, is the builtin registry's table (src/policy/builtins).
 *
 *   const policy = await loadPolicy(wasm, undefined, hostBuiltins);
 *
 * Each builtin appears twice, under the names the module lists in `builtins()`:
 * `toolgate/<name>` (errors make the call undefined, OPA's default) and
 * `toolgate/strict/<name>` (errors throw `eval_builtin_error: <name>: ...`).
 * Called with no arguments (the load-time probe a module makes from
 * `entrypoints()`), a builtin of arity >= 1 answers undefined.
 */
import { hostImplementations, NO_CUSTOM_BUILTINS, type CustomBuiltins, type HostBuiltinFn } from "../builtins/index.js";
import { builtinError, isBuiltinError } from "./errors.js";
import { HOST_PREFIX, HOST_STRICT_PREFIX } from "./names.js";
import { hostValue } from "./exact.js";
import { decodeVerifyWith } from "./jwt-verify.js";
import { testSleep } from "./time.js";
import { notProvidedMessage, providedBuiltins, providedImplementation } from "./provided.js";
import { HostMeter } from "../host-meter.js";
import type { HostLimits } from "../host-meter.js";

export type { HostBuiltinFn } from "../builtins/index.js";
export { HOST_PREFIX, HOST_STRICT_PREFIX, hostBuiltinName, parseHostBuiltinName } from "./names.js";
export { provideHostBuiltins } from "./provided.js";

/** OPA builtin name -> implementation (throws BuiltinError on an OPA error), from the builtin registry. */
export const implementations: Readonly<Record<string, HostBuiltinFn>> = hostImplementations();

/** Thrown by strict host builtins; the SDK propagates it out of evaluate(). */
export class HostBuiltinError extends Error {
  override name = "HostBuiltinError";
  constructor(
    readonly code: string,
    readonly builtin: string,
    detail: string,
    /** "file:row:col" of the call, when the module tells (see HostBuiltinSet.attach). */
    readonly location: string | null = null,
  ) {
    super(`${location === null ? "" : `${location}: `}${code}: ${code === "eval_conflict_error" ? "" : `${builtin}: `}${detail}`);
  }
}
export const isHostBuiltinError = (e: unknown): e is HostBuiltinError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "HostBuiltinError";

type Locate = () => string | null;
const nowhere: Locate = () => null;

/**
 * Per-engine evaluation state the wrappers read: the host meter (host-meter.ts) and
 * whether builtin errors abort the evaluation in this evaluation whatever the module's
 * mode (the engine's `strictBuiltinErrors`).
 */
interface CallState {
  readonly meter: HostMeter | null;
  strict: boolean;
}
const lenientState: CallState = { meter: null, strict: false };

function wrap(name: string, fn: HostBuiltinFn, strict: boolean, locate: Locate, state: CallState): HostBuiltinFn {
  const probeAnswer = fn.length > 0; // arity >= 1: zero arguments can only be the probe
  return (...args: unknown[]): unknown => {
    if (args.length === 0 && probeAnswer) return undefined;
    const meter = state.meter;
    const started = meter === null ? 0 : meter.enter();
    let result: unknown;
    try {
      result = fn(...args);
    } catch (e) {
      meter?.leave(started);
      // Already final (a provided builtin that is missing): aborts in both modes.
      if (isHostBuiltinError(e)) throw e;
      // Any other exception (a RangeError deep in a library, stack exhaustion) is
      // still this builtin failing: never a JavaScript error escaping the policy.
      const err = isBuiltinError(e) ? e : builtinError(e instanceof Error ? e.message : String(e));
      if (!strict && !state.strict && err.code !== "eval_conflict_error") return undefined;
      throw new HostBuiltinError(err.code, name, err.message, locate());
    }
    meter?.leave(started);
    return result;
  }
}

/**
 * A builtin the build tools provide, looked up when called (they may register after this
 * object was built). Not registered: the call aborts the evaluation in both modes.
 */
function provided(name: string, arity: number, strict: boolean, locate: Locate, state: CallState): HostBuiltinFn {
  const missing = (): never => {
    throw new HostBuiltinError("eval_builtin_error", name, notProvidedMessage(name), locate());
  };
  const lookup = (...args: unknown[]): unknown => (providedImplementation(name) ?? missing)(...args);
  return wrap(name, Object.defineProperty(lookup, "length", { value: arity }) as HostBuiltinFn, strict, locate, state);
}

function build(impls: Readonly<Record<string, HostBuiltinFn>>, locate: Locate = nowhere, custom: CustomBuiltins = NO_CUSTOM_BUILTINS, state: CallState = lenientState): Record<string, HostBuiltinFn> {
  const out: Record<string, HostBuiltinFn> = {};
  for (const [name, fn] of Object.entries(impls)) {
    out[HOST_PREFIX + name] = wrap(name, fn, false, locate, state);
    out[HOST_STRICT_PREFIX + name] = wrap(name, fn, true, locate, state);
  }
  for (const { name, arity } of providedBuiltins()) {
    out[HOST_PREFIX + name] = provided(name, arity, false, locate, state);
    out[HOST_STRICT_PREFIX + name] = provided(name, arity, true, locate, state);
  }
  // A custom builtin's error aborts the evaluation in both modes: it never fails open as undefined.
  for (const e of custom.entries) {
    if (e.host === undefined) continue;
    out[HOST_PREFIX + e.name] = wrap(e.name, e.host, true, locate, state);
    out[HOST_STRICT_PREFIX + e.name] = out[HOST_PREFIX + e.name]!;
  }
  return out;
}

/** Pass as `loadPolicy`'s third argument (custom builtins). time.now_ns reads the clock on every call. */
export const hostBuiltins: Readonly<Record<string, HostBuiltinFn>> = Object.freeze(build(implementations));

/** `hostBuiltins` plus the given custom builtins (errors without a location: see createHostBuiltins). */
export function hostBuiltinsWith(custom: CustomBuiltins): Readonly<Record<string, HostBuiltinFn>> {
  return custom.entries.length === 0 ? hostBuiltins : Object.freeze(build(implementations, nowhere, custom));
}

/** What attach() reads: the runtime's `tg_location() -> cstr` ("file:row:col" of the last builtin call). */
// Structural (not WebAssembly.*) so the published declarations need no DOM lib.
export interface LocationSource {
  readonly exports: Readonly<Record<string, unknown>>;
  readonly memory: { readonly buffer: ArrayBufferLike };
}

export interface HostBuiltinSet {
  readonly builtins: Readonly<Record<string, HostBuiltinFn>>;
  /** Call before each evaluation: time.now_ns then reads the clock once until the next call (OPA's rule). */
  readonly startEvaluation: () => void;
  /**
   * After loading (e.g. `attach({ exports: policy.wasmInstance.exports, memory: policy.mem })`):
   * strict errors then start with the call's `file:row:col`, as native builtin errors do.
   * A module without the `tg_location` export leaves messages without a location.
   */
  readonly attach: (source: LocationSource) => void;
  /** The budget and deadline host calls are measured against from the next evaluation on (host-meter.ts). */
  readonly limit: (limits: HostLimits) => void;
  /** From the next call on: every host builtin error aborts the evaluation (also under a lenient module). */
  readonly strictErrors: (on: boolean) => void;
}

export interface HostBuiltinOptions {
  /** Custom builtins (`defineBuiltins`, tools.yaml `policy.builtins`) the policy was compiled with. */
  readonly builtins?: CustomBuiltins;
}

/** Host builtins for one engine, with time.now_ns fixed per evaluation by the engine. */
export function createHostBuiltins(options: HostBuiltinOptions = {}): HostBuiltinSet {
  let now: unknown;
  let source: LocationSource | null = null;
  const readNow = implementations["time.now_ns"]!;
  // OPA answers rand.intn and uuid.rfc4122 once per query for the same arguments.
  let drawn = new Map<string, unknown>();
  const once = (name: string): HostBuiltinFn => {
    const fn = implementations[name]!;
    const cached = (...args: unknown[]): unknown => {
      const key = JSON.stringify(args);
      if (!drawn.has(key)) drawn.set(key, fn(...args));
      return drawn.get(key);
    };
    return Object.defineProperty(cached, "length", { value: fn.length });
  };
  const clock = (): unknown => (now ??= readNow());
  const meter = new HostMeter();
  const impls = {
    ...implementations,
    "time.now_ns": clock,
    "rand.intn": once("rand.intn"),
    "uuid.rfc4122": once("uuid.rfc4122"),
    // decode_verify's default time is the evaluation's time.now_ns, as in OPA
    "io.jwt.decode_verify": decodeVerifyWith(() => Number(hostValue(clock()))),
    // A sleep past the deadline ends there (see testSleep), so a policy never holds the gate longer.
    "test.sleep": (value: unknown) => testSleep(value, meter.remainingMs() + 1),
  };
  const locate: Locate = () => {
    const fn = source?.exports["tg_location"];
    if (typeof fn !== "function") return null;
    const addr = (fn as () => number)();
    if (addr === 0) return null;
    const u8 = new Uint8Array(source!.memory.buffer);
    const end = u8.indexOf(0, addr);
    return new TextDecoder().decode(u8.subarray(addr, end < 0 ? addr : end)) || null;
  };
  const state: CallState = { meter, strict: false };
  return {
    builtins: Object.freeze(build(impls, locate, options.builtins, state)),
    startEvaluation: () => {
      now = undefined;
      drawn = new Map();
      meter.start();
    },
    attach: (s) => (source = s),
    limit: (limits) => meter.limit(limits),
    strictErrors: (on) => (state.strict = on),
  };
}

/** Names in a module's `builtins()` map that `provided` cannot serve (for a load error listing all of them). */
export function missingHostBuiltins(moduleBuiltins: Iterable<string>, provided: Readonly<Record<string, unknown>> = hostBuiltins): string[] {
  return [...moduleBuiltins].filter((n) => typeof provided[n] !== "function");
}
