/** JSON values as host builtins receive them: equality and JSON-pointer paths, as OPA reads them. */
import { operandError, operandTypeError, typeName } from "./errors.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const isObject = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Deep equality of JSON values (object key order is irrelevant). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** A path segment: a string from a "/a/b" pointer, or any value of an array-form path. */
export type Segment = Json;

/**
 * OPA's parsePath: "" is the root, "/a/b~1c" is ["a", "b/c"] (leading slashes
 * trimmed, ~1 -> "/", then ~0 -> "~"), an array is its own segments.
 */
export function parsePath(path: unknown, pos: number): Segment[] {
  if (typeof path === "string") {
    if (path === "") return [];
    return path.replace(/^\/+/, "").split("/").map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
  }
  if (Array.isArray(path)) return path as Segment[];
  throw operandError(pos, `must be one of {set, array} containing string paths or array of path segments but got ${typeName(path)}`);
}

/** OPA's getJSONPaths: operand 2 of json.filter / json.remove. */
export function jsonPaths(operand: unknown): Segment[][] {
  if (!Array.isArray(operand)) throw operandTypeError(2, operand, "set", "array");
  return operand.map((p) => parsePath(p, 2));
}

/** A key for a segment in a Map: distinct values give distinct keys, "0" and 0 differ. */
export const segmentKey = (s: Segment): string => JSON.stringify(canonical(s));

function canonical(v: Json): Json {
  if (Array.isArray(v)) return v.map(canonical);
  if (isObject(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k]!)]));
  return v;
}
