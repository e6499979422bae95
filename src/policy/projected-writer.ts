/**
 * Turns a projection node (input-projection.ts) into straight-line code: one
 * function per object node that reads each projected member by its literal name
 * (a monomorphic property load in V8, where a loop over names is a megamorphic
 * keyed load) and stores the member's ready-made key cell as a constant. It writes
 * exactly what ValueWriter's interpreted projection writes; the engine's load-time
 * check covers both. Hosts that forbid code generation (a Content-Security-Policy
 * without 'unsafe-eval') keep the interpreted writer.
 *
 * Only member names (as JSON string literals) and integer cell addresses enter the
 * generated source.
 */
import type { ValueWriter } from "./fast-input.js";
import type { CompiledProjection, ProjectedObject } from "./input-projection.js";

/** Compiles `node` and its object children in place (sets `compiled`); false when code generation is unavailable. */
export function compileProjection(node: ProjectedObject): boolean {
  try {
    compileNode(node);
    return true;
  } catch {
    clear(node);
    return false;
  }
}

function clear(node: ProjectedObject): void {
  delete node.compiled;
  for (const c of node.children) if (c !== null) clear(c);
}

function compileNode(node: ProjectedObject): CompiledProjection {
  const children = node.children.map((c) => (c === null ? null : compileNode(c)));
  const n = node.keys.length;
  const lines: string[] = [
    `if (typeof o !== "object" || o === null || Array.isArray(o)) return w.whole(o);`,
    `w.plainObject(o);`,
    `const c = w.allocate(16);`,
    n > 0 ? `const d = w.allocate(${8 * n});` : `const d = 0;`,
    `let at = d, count = 0, x;`,
  ];
  node.keys.forEach((k, i) => {
    const name = JSON.stringify(k);
    const cell = node.keyCells[i]!;
    if (!Number.isInteger(cell)) throw new Error("key cell is not an address");
    lines.push(node.inherited[i] ? `x = hasOwn(o, ${name}) ? o[${name}] : undefined;` : `x = o[${name}];`);
    const write = children[i] === null ? `w.whole(x)` : `F[${i}](w, x)`;
    lines.push(`if (x !== undefined) { w.member(at, ${cell}, ${write}); at += 8; count++; }`);
  });
  lines.push(`w.objectCell(c, count, d);`, `return c;`);
  // The value is written before member() stores its address: writing may grow memory.
  const make = new Function("F", "hasOwn", `return function (w, o) {\n${lines.join("\n")}\n};`) as (
    f: readonly (CompiledProjection | null)[],
    hasOwn: (o: object, k: string) => boolean,
  ) => (w: ValueWriter, o: unknown) => number;
  const fn = make(children, (o, k) => Object.prototype.hasOwnProperty.call(o, k));
  node.compiled = fn;
  return fn;
}
