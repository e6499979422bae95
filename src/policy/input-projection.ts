/**
 * The parts of `input` a compiled entrypoint can read, as the compiler records them
 * in the module's custom section `toolgate.input_paths`
 * (`{"version": 1, "entrypoints": {"<path>": tree}}`; a tree is `true` for a whole
 * value, or an object naming the only members the policy can look at). The fast
 * engine writes only those parts: the per-call cost follows what the policy reads,
 * not the size of the input.
 */
import { PolicyLoadError } from "./opa-wasm-engine.js";

export const INPUT_PATHS_SECTION = "toolgate.input_paths";

export type InputPaths = true | { readonly [key: string]: InputPaths };

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
}

/** The entrypoints' trees; null when the module has no section (an older compiler). */
export function readInputPaths(module: WebAssembly.Module): Record<string, InputPaths> | null {
  const sections = WebAssembly.Module.customSections(module, INPUT_PATHS_SECTION);
  if (sections.length === 0) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(sections[0]));
  } catch (e) {
    throw new PolicyLoadError(`policy.wasm: custom section ${INPUT_PATHS_SECTION} is not JSON (${String(e)}); rebuild the policy`);
  }
  const p = parsed as { version?: unknown; entrypoints?: unknown };
  if (typeof parsed !== "object" || parsed === null || p.version !== 1 || typeof p.entrypoints !== "object" || p.entrypoints === null) {
    throw new PolicyLoadError(`policy.wasm: custom section ${INPUT_PATHS_SECTION} is not {"version": 1, "entrypoints": {...}}; rebuild the policy`);
  }
  const out: Record<string, InputPaths> = Object.create(null) as Record<string, InputPaths>;
  for (const [name, tree] of Object.entries(p.entrypoints)) {
    if (!isTree(tree)) throw new PolicyLoadError(`policy.wasm: custom section ${INPUT_PATHS_SECTION}: entrypoint "${name}" has a malformed tree`);
    out[name] = tree;
  }
  return out;
}

function isTree(t: unknown): t is InputPaths {
  if (t === true) return true;
  if (typeof t !== "object" || t === null || Array.isArray(t)) return false;
  return Object.values(t).every(isTree);
}

const utf8 = new TextEncoder();
/** The runtime's string order: bytewise on UTF-8, a prefix first. */
function byUtf8(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Builds the writer's nodes; `keyCell` makes the (persistent) string cell of a member name. */
export function projectInput(tree: InputPaths, keyCell: (key: string) => number): ProjectedObject | null {
  if (tree === true) return null;
  const keys = Object.keys(tree).sort(byUtf8);
  return {
    keys,
    keyCells: Uint32Array.from(keys, keyCell),
    children: keys.map((k) => projectInput(tree[k]!, keyCell)),
    inherited: keys.map((k) => k in Object.prototype),
  };
}

/** An input with every member of the projection present (null leaves), for the engine's load-time check. */
export function projectionSample(node: ProjectedObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  node.keys.forEach((k, i) => {
    const c = node.children[i];
    Object.defineProperty(out, k, { value: c ? projectionSample(c) : null, enumerable: true, writable: true, configurable: true });
  });
  return out;
}
