/**
 * Argument matchers of an expected call: exact arguments, a subset of them, a JSON
 * Schema they satisfy, or a named predicate. Predicates are code: the built-in ones
 * are here, a host adds its own through `RunOptions.predicates`.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import canonicalize from "canonicalize";
import type { JsonObject, JsonValue } from "../manifest.js";
import type { ArgMatcher, CallExpectation } from "./suite-types.js";

/** What a predicate sees: the call's arguments and the intent it answers. */
export interface PredicateInput {
  readonly args: JsonObject;
  readonly message: string;
  readonly context: JsonObject;
}
export type ArgPredicate = (input: PredicateInput) => boolean;

const idPattern = /^[a-z]+_[a-z0-9]+$/;
const strings = (v: JsonValue): string[] =>
  typeof v === "string" ? [v] : Array.isArray(v) ? v.flatMap(strings) : v !== null && typeof v === "object" ? Object.values(v).flatMap(strings) : [];

export const builtinPredicates: Readonly<Record<string, ArgPredicate>> = {
  /** Every id-shaped argument (`acc_x`, `res_y`) appears in the message or the context: nothing invented. */
  grounded_ids: ({ args, message, context }) => {
    const known = `${message}\n${JSON.stringify(context)}`;
    return strings(args).filter((s) => idPattern.test(s)).every((id) => known.includes(id));
  },
  /** At least one argument. */
  non_empty: ({ args }) => Object.keys(args).length > 0,
};

const ajv = new Ajv2020({ allErrors: true, strict: false });
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/** Compiles a matcher schema once; throws with ajv's message when it is not a valid schema. */
export function compileMatcherSchema(schema: JsonObject): (value: unknown) => boolean {
  const key = canonicalize(schema) ?? "";
  let fn = compiled.get(key);
  if (fn === undefined) {
    fn = ajv.compile(schema);
    compiled.set(key, fn);
  }
  const validate = fn;
  return (value) => validate(value) === true;
}

export const sameJson = (a: unknown, b: unknown): boolean => canonicalize(a) === canonicalize(b);

function isSubset(want: JsonValue, got: unknown): boolean {
  if (want !== null && typeof want === "object" && !Array.isArray(want)) {
    if (got === null || typeof got !== "object" || Array.isArray(got)) return false;
    return Object.entries(want).every(([k, v]) => isSubset(v, (got as Record<string, unknown>)[k]));
  }
  return sameJson(want, got);
}

export function matchArgs(matcher: ArgMatcher | undefined, input: PredicateInput, predicates: Readonly<Record<string, ArgPredicate>>): boolean {
  if (matcher === undefined) return true;
  if ("exact" in matcher) return sameJson(matcher.exact, input.args);
  if ("subset" in matcher) return isSubset(matcher.subset, input.args);
  if ("schema" in matcher) return compileMatcherSchema(matcher.schema)(input.args);
  const p = predicates[matcher.predicate];
  return p !== undefined && p(input);
}

/** Why a call does not meet an expectation, or null when it does. */
export function callMismatch(
  want: CallExpectation,
  got: { readonly tool: string; readonly args: unknown },
  intent: { readonly message: string; readonly context: JsonObject },
  predicates: Readonly<Record<string, ArgPredicate>>,
): "tool" | "args" | null {
  if (got.tool !== want.tool) return "tool";
  const args = got.args !== null && typeof got.args === "object" && !Array.isArray(got.args) ? (got.args as JsonObject) : null;
  if (args === null) return want.args === undefined ? null : "args";
  return matchArgs(want.args, { args, ...intent }, predicates) ? null : "args";
}
