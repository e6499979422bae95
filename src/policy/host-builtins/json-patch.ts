/**
 * json.patch: RFC 6902 operations applied in order, with OPA's reading of paths
 * (string pointers or arrays of segments, "-" appends to an array, no leading
 * zeros in indexes, only integral numbers index an array, so `1.0` does not). Set
 * members are addressed by their value and object keys by theirs (any type). Any failing
 * operation makes the result undefined, never an error, as in OPA; removing the root
 * leaves nothing unless a later `add` at "" puts a document back.
 */
import { RegoNumber, RegoObject, RegoSet, valueEqual, type Value } from "./exact-value.js";
import { parsePath, readOperands, valueTypeError, writeResult, type Segment } from "./json-value.js";

/** A failed operation (caught by jsonPatch: the call is undefined). */
class PatchFailure extends Error {}
const fail = (message: string): never => {
  throw new PatchFailure(message);
};

/** The document, or undefined after the root was removed. */
type Doc = Value | undefined;

const MAX_INDEX = 2n ** 63n;

/** OPA's toIndex: an integral number, or a decimal string without leading zeros; "-" is the end. */
function toIndex(length: number, seg: Segment): number {
  if (seg instanceof RegoNumber) {
    if (!seg.isInt) return fail("invalid number type for indexing");
    const b = BigInt(seg.text);
    if (b >= MAX_INDEX || b <= -MAX_INDEX) fail("invalid number type for indexing");
    return Number(b);
  }
  if (typeof seg === "string") {
    if (seg === "-") return length;
    if (!/^[+-]?\d+$/.test(seg)) fail("invalid string for indexing");
    if (seg !== "0" && seg.startsWith("0")) fail("leading zeros are not allowed in JSON paths");
    const b = BigInt(seg);
    if (b >= MAX_INDEX || b <= -MAX_INDEX) fail("invalid string for indexing");
    return Number(b);
  }
  return fail("invalid type for indexing");
}

function child(v: Doc, seg: Segment): Value {
  if (Array.isArray(v)) {
    const i = toIndex(v.length, seg);
    return i >= 0 && i < v.length ? v[i]! : fail(`path ${i} does not exist in array`);
  }
  if (v instanceof RegoObject) return v.get(seg) ?? fail("path does not exist in object");
  if (v instanceof RegoSet) return v.has(seg) ? seg : fail("path does not exist in set");
  return fail("expected composite type");
}

function withEntry(o: RegoObject, key: Value, value: Value): RegoObject {
  const i = o.entries.findIndex(([k]) => valueEqual(k, key));
  if (i < 0) return new RegoObject([...o.entries, [key, value]]);
  return new RegoObject(o.entries.map((e, j) => (j === i ? [e[0], value] : e)));
}

function withMember(s: RegoSet, old: Value | null, value: Value): RegoSet {
  const kept = old === null ? s.items : s.items.filter((x) => !valueEqual(x, old));
  return kept.some((x) => valueEqual(x, value)) ? new RegoSet(kept) : new RegoSet([...kept, value]);
}

function replaceChild(v: Value, seg: Segment, value: Value): Value {
  if (Array.isArray(v)) {
    const out = [...v];
    out[toIndex(v.length, seg)] = value;
    return out;
  }
  if (v instanceof RegoSet) return withMember(v, seg, value);
  return withEntry(v as RegoObject, seg, value);
}

/** Applies `edit` to the value at `path`, rebuilding the parents (the input is never mutated). */
function update(v: Doc, path: readonly Segment[], edit: (parent: Doc) => Value): Value {
  if (path.length === 0) return edit(v);
  const [head, ...rest] = path;
  return replaceChild(v as Value, head!, update(child(v, head!), rest, edit));
}

function valueAt(doc: Doc, path: readonly Segment[]): Value {
  let v = doc;
  for (const seg of path) v = child(v, seg);
  return v === undefined ? fail("nothing at the root") : v;
}

function insertAt(doc: Doc, path: readonly Segment[], value: Value): Value {
  if (path.length === 0) return value;
  const last = path[path.length - 1]!;
  return update(doc, path.slice(0, -1), (parent) => {
    if (Array.isArray(parent)) {
      const i = toIndex(parent.length, last);
      if (i < 0 || i > parent.length) fail("index for array insertion out of bounds");
      return [...parent.slice(0, i), value, ...parent.slice(i)];
    }
    if (parent instanceof RegoObject) return withEntry(parent, last, value);
    if (parent instanceof RegoSet) return withMember(parent, null, value);
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
    if (parent instanceof RegoObject) {
      if (parent.get(last) === undefined) fail("cannot delete child key that does not exist");
      return new RegoObject(parent.entries.filter(([k]) => !valueEqual(k, last)));
    }
    if (parent instanceof RegoSet) {
      if (!parent.has(last)) fail("cannot delete set member that does not exist");
      return new RegoSet(parent.items.filter((x) => !valueEqual(x, last)));
    }
    return fail("expected composite type");
  });
}

function attribute(op: RegoObject, name: string): Value {
  return op.get(name) ?? fail(`missing '${name}' attribute`);
}

const OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);

function apply(doc: Doc, operation: Value): Doc {
  if (!(operation instanceof RegoObject)) return fail("must be an array of JSON-Patch objects, but at least one element is not an object");
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
      const fromPath = parsePath(from!, 2);
      const moved = valueAt(doc, fromPath);
      return insertAt(removeAt(doc, fromPath), path, moved);
    }
    case "copy":
      return insertAt(doc, path, valueAt(doc, parsePath(from!, 2)));
    default:
      return valueEqual(valueAt(doc, path), value!) ? doc : fail("value from EditTree != patch value");
  }
}

export function jsonPatch(target: unknown, patches: unknown): unknown {
  // A module on the exact protocol sends the patches (an array) as text.
  const exact = typeof patches === "string";
  const [doc0, ops] = readOperands([target, patches], exact);
  if (!Array.isArray(ops)) throw valueTypeError(2, ops!, "array");
  let doc: Doc = doc0;
  try {
    for (const operation of ops as readonly Value[]) doc = apply(doc, operation);
  } catch (e) {
    if (e instanceof PatchFailure || (e as { name?: unknown }).name === "BuiltinError") return undefined;
    throw e;
  }
  return writeResult(doc, exact);
}

export const jsonPatchBuiltins = { "json.patch": jsonPatch };
