/**
 * Custom builtins: functions a user declares (name, argument and result types) and
 * implements in synchronous JavaScript, as the opa-wasm SDK's custom builtins. They
 * become registry entries with `custom: true` and a checked `host` implementation:
 * operands are checked against the declaration before the implementation runs, the
 * result after, and any failure is an `eval_builtin_error` / `eval_type_error` that
 * aborts the evaluation (a custom builtin never fails open as "undefined").
 *
 *   export default defineBuiltins({
 *     "regal.last": { args: ["array"], result: "any", impl: (xs) => xs[xs.length - 1] },
 *   });
 */
import { BuiltinError, operandTypeError, typeName } from "../host-builtins/errors.js";
import { jsonText } from "../host-builtins/exact.js";
import { OPA_BUILTINS } from "./table.js";
import type { BuiltinEntry, HostBuiltinFn, ValueType } from "./types.js";
import { VALUE_TYPES } from "./types.js";

/** One type, or a union of them. */
export type TypeSpec = ValueType | readonly ValueType[];

type JsOne<T> = T extends "string" ? string
  : T extends "number" ? number
  : T extends "boolean" ? boolean
  : T extends "null" ? null
  : T extends "array" | "set" ? unknown[] // sets reach JavaScript as arrays
  : T extends "object" ? { readonly [key: string]: unknown }
  : unknown;
/** The JavaScript value an operand of type T arrives as. */
export type JsValueOf<T> = T extends readonly ValueType[] ? JsOne<T[number]> : JsOne<T>;
export type JsArgsOf<A extends readonly TypeSpec[]> = { -readonly [K in keyof A]: JsValueOf<A[K]> };

export interface CustomBuiltinSpec<A extends readonly TypeSpec[] = readonly TypeSpec[]> {
  readonly args: A;
  /** A set cannot come back from JavaScript (it would arrive as an array): declare "array". */
  readonly result: TypeSpec;
  /** Synchronous. Returns the result (JSON-shaped; a bigint for an exact integer), or undefined for no result. */
  readonly impl: (...args: JsArgsOf<A>) => unknown;
  /** The result depends on time or randomness: never constant-folded. */
  readonly nondeterministic?: boolean;
}

/** What `defineBuiltins` returns and `policy.builtins` modules export. */
export interface CustomBuiltins {
  readonly kind: "toolgate.custom-builtins";
  readonly entries: readonly BuiltinEntry[];
}

/** A declaration that cannot be used; `builtin` names it (null when the whole value is wrong). */
export class CustomBuiltinError extends Error {
  override name = "CustomBuiltinError";
  readonly code = "invalid_custom_builtin";
  constructor(
    readonly builtin: string | null,
    detail: string,
  ) {
    super(builtin === null ? detail : `custom builtin ${builtin}: ${detail}`);
  }
}
export const isCustomBuiltinError = (e: unknown): e is CustomBuiltinError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "CustomBuiltinError";

export const isCustomBuiltins = (v: unknown): v is CustomBuiltins =>
  typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "toolgate.custom-builtins" && Array.isArray((v as { entries?: unknown }).entries);

export const NO_CUSTOM_BUILTINS: CustomBuiltins = { kind: "toolgate.custom-builtins", entries: [] };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const RESERVED_ROOTS = new Set(["input", "data"]);
const TYPE_HELP = `use one of ${VALUE_TYPES.join(", ")}, or an array of them for a union`;

const OPA_NAMES: ReadonlySet<string> = new Set(OPA_BUILTINS.map((b) => b.name));

/**
 * Declares custom builtins, checking every declaration: a CustomBuiltinError names the
 * builtin and what to change. The operand types of each `impl` follow from its `args`.
 */
export function defineBuiltins<const T extends Record<string, readonly TypeSpec[]>>(
  specs: { readonly [K in keyof T]: CustomBuiltinSpec<T[K]> },
): CustomBuiltins {
  if (typeof specs !== "object" || specs === null || Array.isArray(specs)) {
    throw new CustomBuiltinError(null, `expected an object of builtin name -> { args, result, impl }, got ${typeName(specs)}`);
  }
  const entries = Object.entries(specs as Record<string, unknown>).map(([name, spec]) => toEntry(name, spec));
  return { kind: "toolgate.custom-builtins", entries };
}

/**
 * What a `policy.builtins` module exports: a defineBuiltins result, or the plain object
 * defineBuiltins takes (checked the same way).
 */
export function toCustomBuiltins(value: unknown): CustomBuiltins {
  if (isCustomBuiltins(value)) return value;
  return defineBuiltins(value as Parameters<typeof defineBuiltins>[0]);
}

function toEntry(name: string, spec: unknown): BuiltinEntry {
  const fail = (detail: string): never => {
    throw new CustomBuiltinError(name, detail);
  };
  if (!NAME.test(name)) fail('the name must be a dotted Rego reference such as "acme.lookup"');
  if (RESERVED_ROOTS.has(name.split(".")[0]!)) fail("the name must not start with input or data");
  if (OPA_NAMES.has(name)) fail("an OPA builtin of that name exists; choose another name (e.g. with your organisation's prefix)");
  if (typeof spec !== "object" || spec === null) return fail("expected { args, result, impl }");
  const s = spec as Record<string, unknown>;
  for (const key of Object.keys(s)) if (!["args", "result", "impl", "nondeterministic"].includes(key)) fail(`unknown field ${key} (fields: args, result, impl, nondeterministic)`);
  if (!Array.isArray(s.args)) fail('args must be an array of types, e.g. ["string"] ([] for none)');
  const args = (s.args as unknown[]).map((a, i) => typeUnion(a, `argument ${i + 1}`, fail));
  const result = typeUnion(s.result, "result", fail);
  if (result.includes("set")) fail('result: a set cannot be returned from JavaScript (it arrives as an array): declare "array"');
  if (typeof s.impl !== "function") fail(`impl must be a function, got ${typeName(s.impl)}`);
  if (s.nondeterministic !== undefined && typeof s.nondeterministic !== "boolean") fail("nondeterministic must be true or false");
  const host = checkedImplementation(name, args, result, s.impl as HostBuiltinFn);
  return { name, args, result, custom: true, host, ...(s.nondeterministic === true ? { nondeterministic: true } : {}) };
}

function typeUnion(spec: unknown, what: string, fail: (detail: string) => never): readonly ValueType[] {
  const parts = typeof spec === "string" ? [spec] : Array.isArray(spec) && spec.length > 0 ? (spec as unknown[]) : null;
  if (parts === null) return fail(`${what}: expected a type name or an array of them; ${TYPE_HELP}`);
  for (const p of parts) if (!(VALUE_TYPES as readonly unknown[]).includes(p)) fail(`${what}: unknown type ${JSON.stringify(p)}; ${TYPE_HELP}`);
  return parts.includes("any") ? ["any"] : (parts as ValueType[]);
}

function hasType(v: unknown, types: readonly ValueType[]): boolean {
  if (types.includes("any")) return true;
  const t = typeName(v);
  // Sets reach JavaScript as arrays.
  return types.includes(t as ValueType) || (t === "array" && types.includes("set"));
}

/** The implementation behind the declaration: operand and result checks, exceptions as builtin errors. */
function checkedImplementation(name: string, args: readonly (readonly ValueType[])[], result: readonly ValueType[], impl: HostBuiltinFn): HostBuiltinFn {
  const checked = (...operands: unknown[]): unknown => {
    operands.forEach((v, i) => {
      if (!hasType(v, args[i]!)) throw operandTypeError(i + 1, v, ...args[i]!);
    });
    let out: unknown;
    try {
      out = impl(...operands);
    } catch (e) {
      throw new BuiltinError("eval_builtin_error", e instanceof Error ? e.message : String(e));
    }
    if (out === undefined) return undefined;
    if (out instanceof Promise) throw new BuiltinError("eval_builtin_error", "the implementation returned a Promise; custom builtins are synchronous");
    if (typeof out === "bigint") {
      if (!hasType(0, result)) throw resultError(out, result);
      return jsonText(out.toString());
    }
    const bad = notJson(out);
    if (bad !== null) throw new BuiltinError("eval_builtin_error", `the result is not a JSON value: ${bad}`);
    if (!hasType(out, result)) throw resultError(out, result);
    return out;
  };
  // The load-time probe calls with no operands; the host wrapper tells it by this length.
  return Object.defineProperty(checked, "length", { value: args.length });
}

function resultError(got: unknown, expected: readonly ValueType[]): BuiltinError {
  const want = expected.length === 1 ? expected[0]! : `one of {${expected.join(", ")}}`;
  return new BuiltinError("eval_builtin_error", `the result must be ${want} but got ${typeof got === "bigint" ? "number" : typeName(got)}`);
}

/** Why v is not a JSON value (path and kind), or null when it is one. */
function notJson(v: unknown, path = "result"): string | null {
  if (v === null || typeof v === "string" || typeof v === "boolean") return null;
  if (typeof v === "number") return Number.isFinite(v) ? null : `${path} is ${v}`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const bad = notJson(v[i], `${path}[${i}]`);
      if (bad !== null) return bad;
    }
    return null;
  }
  if (typeof v === "object" && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
    for (const [k, x] of Object.entries(v)) {
      const bad = notJson(x, `${path}.${k}`);
      if (bad !== null) return bad;
    }
    return null;
  }
  const kind = typeof v === "object" ? (v as object).constructor?.name ?? "object" : typeof v;
  return `${path} is a ${kind} (return null, booleans, numbers, strings, arrays and plain objects)`;
}
