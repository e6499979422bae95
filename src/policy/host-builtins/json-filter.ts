/**
 * json.filter and json.remove: keep or drop the values at JSON paths. The paths
 * become a tree (OPA's pathsToObject) whose leaves mark a whole subtree; array
 * elements are addressed by their index as a string ("/a/0" or ["a", "0"]), set
 * members and object keys by their value (so a set stays a set, a key need not be a string).
 */
import { RegoObject, RegoSet, valueKey, type Value } from "./exact-value.js";
import { jsonPaths, readOperands, valueTypeError, writeResult, type Segment } from "./json-value.js";

/** A level of the path tree: segment key -> subtree, or null where a path ends. */
type PathTree = Map<string, PathTree | null>;

function pathTree(paths: readonly Segment[][]): PathTree {
  const root: PathTree = new Map();
  for (const path of paths) {
    if (path.length === 0) continue;
    let node: PathTree | null = root;
    for (let i = 0; i < path.length - 1 && node !== null; i++) {
      const k = valueKey(path[i]!);
      if (!node.has(k)) node.set(k, new Map());
      node = node.get(k)!; // a shorter path already ends here: it covers this one
    }
    if (node !== null) node.set(valueKey(path[path.length - 1]!), null);
  }
  return root;
}

const indexKey = (i: number): string => valueKey(String(i));

function filter(v: Value, tree: PathTree | null): Value {
  if (tree === null) return v;
  if (Array.isArray(v)) {
    const out: Value[] = [];
    v.forEach((x, i) => {
      const sub = tree.get(indexKey(i));
      if (sub !== undefined) out.push(filter(x, sub));
    });
    return out;
  }
  if (v instanceof RegoSet) {
    const out: Value[] = [];
    for (const x of v.items) {
      const sub = tree.get(valueKey(x));
      if (sub !== undefined) out.push(filter(x, sub));
    }
    return new RegoSet(out);
  }
  if (v instanceof RegoObject) {
    const out: [Value, Value][] = [];
    for (const [k, x] of v.entries) {
      const sub = tree.get(valueKey(k));
      if (sub !== undefined) out.push([k, filter(x, sub)]);
    }
    return new RegoObject(out);
  }
  return v;
}

/** undefined: the value is removed. */
function remove(v: Value, tree: PathTree | null | undefined): Value | undefined {
  if (tree === undefined) return v;
  if (tree === null) return undefined;
  if (Array.isArray(v)) {
    const out: Value[] = [];
    v.forEach((x, i) => {
      const kept = remove(x, tree.get(indexKey(i)));
      if (kept !== undefined) out.push(kept);
    });
    return out;
  }
  if (v instanceof RegoSet) {
    const out: Value[] = [];
    for (const x of v.items) {
      const kept = remove(x, tree.get(valueKey(x)));
      if (kept !== undefined) out.push(kept);
    }
    return new RegoSet(out);
  }
  if (v instanceof RegoObject) {
    const out: [Value, Value][] = [];
    for (const [k, x] of v.entries) {
      const kept = remove(x, tree.get(valueKey(k)));
      if (kept !== undefined) out.push([k, kept]);
    }
    return new RegoObject(out);
  }
  return v;
}

function objectOperand(v: Value): RegoObject {
  if (!(v instanceof RegoObject)) throw valueTypeError(1, v, "object");
  return v;
}

// A module on the exact protocol sends operand 1 as text; an object can only arrive so.
const isExact = (object: unknown): boolean => typeof object === "string";

export function jsonFilter(object: unknown, paths: unknown): unknown {
  const exact = isExact(object);
  const [obj, ps] = readOperands([object, paths], exact);
  return writeResult(filter(objectOperand(obj!), pathTree(jsonPaths(ps!))), exact);
}

export function jsonRemove(object: unknown, paths: unknown): unknown {
  const exact = isExact(object);
  const [obj, ps] = readOperands([object, paths], exact);
  return writeResult(remove(objectOperand(obj!), pathTree(jsonPaths(ps!))), exact);
}

export const jsonFilterBuiltins = {
  "json.filter": jsonFilter,
  "json.remove": jsonRemove,
};
