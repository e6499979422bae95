/**
 * What json.filter, json.remove and json.patch share: their operands as exact values
 * (exact-value.ts) whichever way they arrived, and JSON-pointer paths as OPA reads them.
 */
import { BuiltinError, operandError, typeName } from "./errors.js";
import { jsonText } from "./exact.js";
import { fromJson, parseExact, RegoObject, RegoSet, toJson, writeExact, type Value } from "./exact-value.js";

export const isObject = (v: Value): v is RegoObject => v instanceof RegoObject;

/** A path segment: a string from a "/a/b" pointer, or any value of an array-form path. */
export type Segment = Value;

/**
 * The operands of one call: a module on the exact protocol sends every operand as tagged
 * JSON text (`exact` true); a module built before it sends plain JSON values.
 */
export function readOperands(operands: readonly unknown[], exact: boolean): Value[] {
  return operands.map((o) => (exact ? parseExact(o as string) : fromJson(o)));
}

/** The result in the form the call's module reads back (undefined stays undefined). */
export function writeResult(v: Value | undefined, exact: boolean): unknown {
  if (v === undefined) return undefined;
  return exact ? jsonText(writeExact(v)) : toJson(v);
}

/** A value's OPA type name, for operand errors. */
export function valueTypeName(v: Value): string {
  if (v instanceof RegoObject) return "object";
  if (v instanceof RegoSet) return "set";
  if (Array.isArray(v)) return "array";
  return typeof v === "object" && v !== null ? "number" : typeName(v);
}

/** OPA's operand type error for a value of this protocol. */
export function valueTypeError(pos: number, v: Value, ...expected: string[]): BuiltinError {
  const want = expected.length === 1 ? expected[0]! : `one of {${expected.join(", ")}}`;
  return new BuiltinError("eval_type_error", `operand ${pos} must be ${want} but got ${valueTypeName(v)}`);
}

/**
 * OPA's parsePath: "" is the root, "/a/b~1c" is ["a", "b/c"] (leading slashes
 * trimmed, ~1 -> "/", then ~0 -> "~"), an array is its own segments.
 */
export function parsePath(path: Value, pos: number): Segment[] {
  if (typeof path === "string") {
    if (path === "") return [];
    return path.replace(/^\/+/, "").split("/").map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
  }
  if (Array.isArray(path)) return [...path];
  throw operandError(pos, `must be one of {set, array} containing string paths or array of path segments but got ${valueTypeName(path)}`);
}

/** OPA's getJSONPaths: operand 2 of json.filter / json.remove, a set or an array of paths. */
export function jsonPaths(operand: Value): Segment[][] {
  const items = operand instanceof RegoSet ? operand.items : Array.isArray(operand) ? operand : null;
  if (items === null) throw valueTypeError(2, operand, "set", "array");
  return items.map((p) => parsePath(p, 2));
}
