/**
 * A pre-encoded input for one entrypoint: the projected object's skeleton
 * (input-projection.ts) laid out once in memory the engine keeps below the
 * evaluation heap, with every object header and member key already in place.
 * Per call only the member values are patched: a leaf string goes into its
 * member's own string cell (rewritten only when the text changed since the last
 * call), an integer into its own number cell, booleans and null to the shared
 * cells (whatever the projection says of the member: a projection only narrows
 * objects); objects at projected paths are their own templates, and anything else
 * (arrays, objects read whole, floats, non-ASCII or long strings) is written
 * fresh on the heap by the general writer.
 *
 * An object that does not have every projected member (absent, undefined) is
 * written fresh by the projected writer instead, as is anything the general
 * writer declines; the result is the same cells `writeProjected` would write,
 * only at other addresses. The engine checks each template against the module's
 * own parser at load.
 *
 * Like projected-writer.ts, the template is straight-line code made with
 * `new Function` (member names enter the source as JSON string literals,
 * addresses as integers); a host that forbids code generation has no template.
 */
import type { ValueWriter } from "./fast-input.js";
import type { ProjectedObject } from "./input-projection.js";

/** Bytes of a leaf string's own cell after its 16-byte header; longer strings are written fresh. */
export const SLOT_STRING_BYTES = 128;
const LEAF_BYTES = 16 + 16 + SLOT_STRING_BYTES;

export interface InputTemplate {
  /** Writes `value`'s cells (patching the template where the shape matches) and returns the root's address. */
  readonly write: (w: ValueWriter, value: unknown) => number;
  /** The template's memory, [start, end): cells there are overwritten by later calls. */
  readonly start: number;
  readonly end: number;
}

/** The memory a template of `node` takes (8-byte multiples). */
export function templateBytes(node: ProjectedObject): number {
  let n = 16 + 8 * node.keys.length;
  for (const c of node.children) n += LEAF_BYTES + (c === null ? 0 : templateBytes(c));
  return n;
}

/**
 * Lays out the template of `node` from `start` (8-aligned, templateBytes(node)
 * long, owned by the caller for as long as the template is used) and compiles its
 * writer; null when code generation is unavailable.
 */
export function buildTemplate(node: ProjectedObject, w: ValueWriter, start: number): InputTemplate | null {
  let next = start;
  const take = (n: number): number => {
    const a = next;
    next += n;
    return a;
  };
  let write: (w: ValueWriter, value: unknown) => number;
  try {
    write = compile(node, w, take);
  } catch {
    return null;
  }
  return { write, start, end: next };
}

type NodeWriter = (w: ValueWriter, o: unknown) => number;

function compile(node: ProjectedObject, w: ValueWriter, take: (n: number) => number): NodeWriter {
  const n = node.keys.length;
  const header = take(16);
  const members = take(8 * n);
  w.objectCell(header, n, members);
  const children: (NodeWriter | null)[] = [];
  const strings: number[] = [];
  const numbers: number[] = [];
  node.keys.forEach((_, i) => {
    const child = node.children[i]!;
    w.member(members + 8 * i, node.keyCells[i]!, 0);
    children.push(child === null ? null : compile(child, w, take));
    const s = take(16 + SLOT_STRING_BYTES);
    w.stringCell(s, 0, s + 16);
    strings.push(s);
    numbers.push(take(16));
  });
  const { nullCell, trueCell, falseCell } = w.shared;
  for (const c of [nullCell, trueCell, falseCell]) if (!Number.isInteger(c)) throw new Error("shared cell is not an address");
  const lines: string[] = [
    `if (typeof o !== "object" || o === null || Array.isArray(o)) return w.whole(o);`,
    // toJSON first, as JSON.stringify reads it: the load's map check lets the prototype read fold.
    `if (typeof o.toJSON === "function") w.plainObject(o);`,
    `const p = getProto(o);`,
    `if (p !== OP && p !== null) w.plainObject(o);`,
  ];
  node.keys.forEach((k, i) => {
    const name = JSON.stringify(k);
    lines.push(node.inherited[i] ? `const x${i} = hasOwn(o, ${name}) ? o[${name}] : undefined;` : `const x${i} = o[${name}];`);
    lines.push(`if (x${i} === undefined) return w.fresh(o, node);`);
  });
  const state: string[] = [];
  node.keys.forEach((_, i) => {
    const s = strings[i]!;
    const num = numbers[i]!;
    if (!Number.isInteger(s) || !Number.isInteger(num)) throw new Error("template cell is not an address");
    // s<i>: the text now in this member's string cell. It is always a string (the cell starts
    // empty, and is emptied when a text does not fit), so `x === s` compares two strings: a
    // comparison site that also saw undefined, objects or numbers is a generic call per member.
    state.push(`let s${i} = "";`);
    lines.push(
      `let v${i};`,
      `if (typeof x${i} === "string") {`,
      `  if (x${i} === s${i}) v${i} = ${s};`,
      `  else if (w.slotString(${s}, ${SLOT_STRING_BYTES}, x${i})) { s${i} = x${i}; v${i} = ${s}; }`,
      `  else { s${i} = ""; v${i} = w.whole(x${i}); }`,
      `} else if (typeof x${i} === "number") v${i} = w.slotNumber(${num}, x${i});`,
      `else if (x${i} === true) v${i} = ${trueCell};`,
      `else if (x${i} === false) v${i} = ${falseCell};`,
      `else if (x${i} === null) v${i} = ${nullCell};`,
      children[i] === null ? `else v${i} = w.whole(x${i});` : `else v${i} = C[${i}](w, x${i});`,
    );
  });
  // Values are stored once all are written: writing may grow memory (addresses stay valid, views do not).
  lines.push(`const u = w.words();`);
  node.keys.forEach((_, i) => lines.push(`u[${(members + 8 * i + 4) >>> 2}] = v${i};`));
  lines.push(`return ${header};`);
  const make = new Function("C", "node", "hasOwn", "getProto", "OP", `${state.join("\n")}\nreturn function (w, o) {\n${lines.join("\n")}\n};`) as (
    c: readonly (NodeWriter | null)[],
    node: ProjectedObject,
    hasOwn: (o: object, k: string) => boolean,
    getProto: (o: object) => unknown,
    op: object,
  ) => NodeWriter;
  return make(children, node, (o, k) => Object.prototype.hasOwnProperty.call(o, k), Object.getPrototypeOf, Object.prototype);
}
