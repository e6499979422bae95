/**
 * json.patch: RFC 6902 operations applied in order, with OPA's reading of paths
 * (string pointers or arrays of segments, "-" appends to an array, no leading
 * zeros in indexes). Any failing operation makes the result undefined, never an
 * error, as in OPA; removing the root leaves nothing unless a later `add` at ""
 * puts a document back.
 */
import { arrayOperand } from "./operands.js";
import { isObject, jsonEqual, parsePath, type Json, type Segment } from "./json-value.js";

/** A failed operation (caught by jsonPatch: the call is undefined). */
class PatchFailure extends Error {}
const fail = (message: string): never => {
  throw new PatchFailure(message);
};

/** The document, or undefined after the root was removed. */
type Doc = Json | undefined;

const MAX_INDEX = 2 ** 63;

/** OPA's toIndex: an integral number, or a decimal string without leading zeros; "-" is the end. */
function toIndex(length: number, seg: Segment): number {
  if (typeof seg === "number") {
    if (!Number.isInteger(seg) || Math.abs(seg) >= MAX_INDEX) fail("invalid number type for indexing");
    return seg;
  }
  if (typeof seg === "string") {
    if (seg === "-") return length;
    if (!/^[+-]?\d+$/.test(seg)) fail("invalid string for indexing");
    if (seg !== "0" && seg.startsWith("0")) fail("leading zeros are not allowed in JSON paths");
    const n = Number(seg);
    if (Math.abs(n) >= MAX_INDEX) fail("invalid string for indexing");
    return n;
  }
  return fail("invalid type for indexing");
}

function objectKey(seg: Segment): string {
  // Host objects have string keys only; another key cannot address one of them.
  return typeof seg === "string" ? seg : fail(`path ${JSON.stringify(seg)} does not exist in object`);
}

function child(v: Doc, seg: Segment): Json {
  if (Array.isArray(v)) {
    const i = toIndex(v.length, seg);
    return i >= 0 && i < v.length ? v[i]! : fail(`path ${i} does not exist in array`);
  }
  if (isObject(v)) {
    const k = objectKey(seg);
    return Object.hasOwn(v, k) ? v[k]! : fail(`path ${k} does not exist in object`);
  }
  return fail("expected composite type");
}

function replaceChild(v: Json, seg: Segment, value: Json): Json {
  if (Array.isArray(v)) {
    const out = [...v];
    out[toIndex(v.length, seg)] = value;
    return out;
  }
  return { ...(v as Record<string, Json>), [objectKey(seg)]: value };
}

/** Applies `edit` to the value at `path`, rebuilding the parents (the input is never mutated). */
function update(v: Doc, path: readonly Segment[], edit: (parent: Doc) => Json): Json {
  if (path.length === 0) return edit(v);
  const [head, ...rest] = path;
  return replaceChild(v as Json, head!, update(child(v, head!), rest, edit));
}

function valueAt(doc: Doc, path: readonly Segment[]): Json {
  let v = doc;
  for (const seg of path) v = child(v, seg);
  return v === undefined ? fail("nothing at the root") : v;
}

function insertAt(doc: Doc, path: readonly Segment[], value: Json): Json {
  if (path.length === 0) return value;
  const last = path[path.length - 1]!;
  return update(doc, path.slice(0, -1), (parent) => {
    if (Array.isArray(parent)) {
      const i = toIndex(parent.length, last);
      if (i < 0 || i > parent.length) fail("index for array insertion out of bounds");
      return [...parent.slice(0, i), value, ...parent.slice(i)];
    }
    if (isObject(parent)) return { ...parent, [objectKey(last)]: value };
    return fail("expected composite type");
  });
}

function removeAt(doc: Doc, path: readonly Segment[]): Doc {
  if (path.length === 0) return doc === undefined ? fail("deleted node encountered during delete operation") : undefined;
  const last = path[path.length - 1]!;
  return update(doc, path.slice(0, -1), (parent) => {
    if (Array.isArray(parent)) {
      const i = toIndex(parent.length, last);
      if (i < 0 || i > parent.length - 1) fail("index for array delete out of bounds");
      return [...parent.slice(0, i), ...parent.slice(i + 1)];
    }
    if (isObject(parent)) {
      const k = objectKey(last);
      if (!Object.hasOwn(parent, k)) fail(`cannot delete child key ${k} that does not exist`);
      const { [k]: _removed, ...rest } = parent;
      return rest;
    }
    return fail("expected composite type");
  });
}

function attribute(op: Record<string, Json>, name: string): Json {
  return Object.hasOwn(op, name) ? op[name]! : fail(`missing '${name}' attribute`);
}

const OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);

function apply(doc: Doc, operation: unknown): Doc {
  if (!isObject(operation)) return fail("must be an array of JSON-Patch objects, but at least one element is not an object");
  const op = attribute(operation, "op");
  if (typeof op !== "string") return fail("attribute 'op' must be a string");
  if (!OPS.has(op)) return fail(`unrecognized op '${op}'`);
  const pathTerm = attribute(operation, "path");
  const from = op === "move" || op === "copy" ? attribute(operation, "from") : null;
  const value = op === "add" || op === "replace" || op === "test" ? attribute(operation, "value") : null;
  const path = parsePath(pathTerm, 2);
  switch (op) {
    case "add":
      return insertAt(doc, path, value!);
    case "remove":
      return removeAt(doc, path);
    case "replace":
      return insertAt(removeAt(doc, path), path, value!);
    case "move": {
      const fromPath = parsePath(from, 2);
      const moved = valueAt(doc, fromPath);
      return insertAt(removeAt(doc, fromPath), path, moved);
    }
    case "copy":
      return insertAt(doc, path, valueAt(doc, parsePath(from, 2)));
    default:
      return jsonEqual(valueAt(doc, path), value) ? doc : fail("value from EditTree != patch value");
  }
}

export function jsonPatch(target: unknown, patches: unknown): Doc {
  const operations = arrayOperand(patches, 2);
  let doc = target as Doc;
  try {
    for (const operation of operations) doc = apply(doc, operation);
  } catch (e) {
    if (e instanceof PatchFailure || (e as { name?: unknown }).name === "BuiltinError") return undefined;
    throw e;
  }
  return doc;
}

export const jsonPatchBuiltins = { "json.patch": jsonPatch };
