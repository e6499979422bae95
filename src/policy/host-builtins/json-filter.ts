/**
 * json.filter and json.remove: keep or drop the values at JSON paths. The paths
 * become a tree (OPA's pathsToObject) whose leaves mark a whole subtree; array
 * elements are addressed by their index as a string ("/a/0" or ["a", "0"]).
 */
import { operandTypeError } from "./errors.js";
import { isObject, jsonPaths, segmentKey, type Json, type Segment } from "./json-value.js";

/** A level of the path tree: segment key -> subtree, or null where a path ends. */
type PathTree = Map<string, PathTree | null>;

function pathTree(paths: readonly Segment[][]): PathTree {
  const root: PathTree = new Map();
  for (const path of paths) {
    if (path.length === 0) continue;
    let node: PathTree | null = root;
    for (let i = 0; i < path.length - 1 && node !== null; i++) {
      const k = segmentKey(path[i]!);
      if (!node.has(k)) node.set(k, new Map());
      node = node.get(k)!; // a shorter path already ends here: it covers this one
    }
    if (node !== null) node.set(segmentKey(path[path.length - 1]!), null);
  }
  return root;
}

const indexKey = (i: number): string => segmentKey(String(i));

function filter(v: Json, tree: PathTree | null): Json {
  if (tree === null) return v;
  if (Array.isArray(v)) {
    const out: Json[] = [];
    v.forEach((x, i) => {
      const sub = tree.get(indexKey(i));
      if (sub !== undefined) out.push(filter(x, sub));
    });
    return out;
  }
  if (isObject(v)) {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) {
      const sub = tree.get(segmentKey(k));
      if (sub !== undefined) out[k] = filter(x, sub);
    }
    return out;
  }
  return v;
}

/** undefined: the value is removed. */
function remove(v: Json, tree: PathTree | null | undefined): Json | undefined {
  if (tree === undefined) return v;
  if (tree === null) return undefined;
  if (Array.isArray(v)) {
    const out: Json[] = [];
    v.forEach((x, i) => {
      const kept = remove(x, tree.get(indexKey(i)));
      if (kept !== undefined) out.push(kept);
    });
    return out;
  }
  if (isObject(v)) {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) {
      const kept = remove(x, tree.get(segmentKey(k)));
      if (kept !== undefined) out[k] = kept;
    }
    return out;
  }
  return v;
}

function objectOperand(v: unknown): Record<string, Json> {
  if (!isObject(v)) throw operandTypeError(1, v, "object");
  return v;
}

export function jsonFilter(object: unknown, paths: unknown): Json {
  const obj = objectOperand(object);
  return filter(obj, pathTree(jsonPaths(paths)));
}

export function jsonRemove(object: unknown, paths: unknown): Json | undefined {
  const obj = objectOperand(object);
  return remove(obj, pathTree(jsonPaths(paths)));
}

export const jsonFilterBuiltins = {
  "json.filter": jsonFilter,
  "json.remove": jsonRemove,
};
