/**
 * The parts of `input` a compiled entrypoint can read, as the compiler records them
 * in the module's custom section `toolgate.input_paths`
 * (`{"version": 1, "entrypoints": {"<path>": tree}}`; a tree is `true` for a whole
 * value, or an object naming the only members the policy can look at). The fast
 * engine writes only those parts: the per-call cost follows what the policy reads,
 * not the size of the input.
 */
import type { ValueWriter } from "./fast-input.js";
import { PolicyLoadError } from "./load-error.js";
import { compareUtf8, SECTIONS } from "./abi.js";
import type { InputPaths, InputPathsSectionJson } from "./abi.js";

const INPUT_PATHS_SECTION = SECTIONS.inputPaths;

/**
 * An object node ready for writing: member names in the runtime's key order
 * (UTF-8 bytes), each with its key cell (allocated once by the engine) and its
 * child (null: written whole).
 */
export interface ProjectedObject {
  readonly keys: readonly string[];
  readonly keyCells: Uint32Array;
  readonly children: readonly (ProjectedObject | null)[];
  /** Members that also exist on Object.prototype, read with an own-property check. */
  readonly inherited: readonly boolean[];
  /** The same writing as straight-line code for this node (projected-writer.ts), where the host allows it. */
  compiled?: CompiledProjection;
}

/** Writes `value` as its node says and returns its cell (see ValueWriter.writeProjected). */
export type CompiledProjection = (writer: ValueWriter, value: unknown) => number;

/** The section as read: its trees and key cells, checked (InputPathsSectionJson without the version). */
export type InputPathsSection = Omit<InputPathsSectionJson, "version">;

/** The section's trees and key cells; null when the module has none (an older compiler). */
export function readInputPaths(module: WebAssembly.Module): InputPathsSection | null {
  const sections = WebAssembly.Module.customSections(module, INPUT_PATHS_SECTION);
  if (sections.length === 0) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(sections[0]));
  } catch (e) {
    throw new PolicyLoadError(`policy.wasm: custom section ${INPUT_PATHS_SECTION} is not JSON (${String(e)}); rebuild the policy`);
  }
  const p = parsed as { readonly [K in keyof InputPathsSectionJson]?: unknown };
  const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
  if (!isObject(parsed) || p.version !== 1 || !isObject(p.entrypoints) || !isObject(p.keys)) {
    throw new PolicyLoadError(`policy.wasm: custom section ${INPUT_PATHS_SECTION} is not {"version": 1, "entrypoints": {...}, "keys": {...}}; rebuild the policy`);
  }
  const entrypoints = Object.create(null) as Record<string, InputPaths>;
  for (const [name, tree] of Object.entries(p.entrypoints)) {
    if (!isTree(tree)) throw new PolicyLoadError(`policy.wasm: custom section ${INPUT_PATHS_SECTION}: entrypoint "${name}" has a malformed tree`);
    entrypoints[name] = tree;
  }
  const keys = Object.create(null) as Record<string, number>;
  for (const [k, addr] of Object.entries(p.keys)) {
    if (!Number.isInteger(addr) || (addr as number) <= 0) throw new PolicyLoadError(`policy.wasm: custom section ${INPUT_PATHS_SECTION}: key "${k}" has no cell address`);
    keys[k] = addr as number;
  }
  return { entrypoints, keys };
}

function isTree(t: unknown): t is InputPaths {
  if (t === true) return true;
  if (typeof t !== "object" || t === null || Array.isArray(t)) return false;
  return Object.values(t).every(isTree);
}

/** Builds the writer's nodes; `keyCell` makes the (persistent) string cell of a member name. */
export function projectInput(tree: InputPaths, keyCell: (key: string) => number): ProjectedObject | null {
  if (tree === true) return null;
  const keys = Object.keys(tree).sort(compareUtf8);
  return {
    keys,
    keyCells: Uint32Array.from(keys, keyCell),
    children: keys.map((k) => projectInput(tree[k]!, keyCell)),
    inherited: keys.map((k) => k in Object.prototype),
  };
}

/** An input with every member of the projection present (leaves `leaf(name)`, default null), for the engine's load-time checks. */
export function projectionSample(node: ProjectedObject, leaf: (key: string) => unknown = () => null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  node.keys.forEach((k, i) => {
    const c = node.children[i];
    Object.defineProperty(out, k, { value: c ? projectionSample(c, leaf) : leaf(k), enumerable: true, writable: true, configurable: true });
  });
  return out;
}
