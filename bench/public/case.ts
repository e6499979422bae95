/**
 * A public policy that OPA's own compiler built, read from a directory outside the
 * repository (see README.md for the layout and how to fill it). Enters: a case
 * directory. Leaves: the OPA-built module, the Rego it was built from, its data, the
 * inputs to evaluate, or a sentence saying what is missing.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import type { SourceFile } from "../../codegen/compiler/index.js";

export interface PublicInput {
  /** File name under inputs/, e.g. "105k.json". */
  readonly name: string;
  readonly bytes: number;
  readonly value: unknown;
}

export interface PublicCase {
  /** The case directory's name. */
  readonly name: string;
  /** The module OPA built (`policy.wasm`). */
  readonly opaWasm: Uint8Array;
  /** The Rego that module was built from. */
  readonly modules: readonly SourceFile[];
  readonly data: Record<string, unknown>;
  /** The rule path to evaluate (file `entrypoint`), or null: the module's first entrypoint. */
  readonly entrypoint: string | null;
  readonly inputs: readonly PublicInput[];
}

export type CaseResult = { readonly case: PublicCase } | { readonly name: string; readonly unusable: string };

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${where}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}

function regoFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== "inputs") out.push(...regoFiles(p));
    else if (entry.isFile() && entry.name.endsWith(".rego") && !entry.name.endsWith("_test.rego")) out.push(p);
  }
  return out.sort();
}

/** One case directory; throws with the path and what is wrong. */
export function loadCase(dir: string): PublicCase {
  const name = basename(dir);
  const wasmPath = join(dir, "policy.wasm");
  if (!existsSync(wasmPath)) throw new Error(`${wasmPath}: missing (the module opa build -t wasm wrote)`);
  const opaWasm = new Uint8Array(readFileSync(wasmPath));
  const modules = regoFiles(dir).map((p): SourceFile => ({ file: `${name}/${relative(dir, p)}`, source: readFileSync(p, "utf8") }));
  if (modules.length === 0) throw new Error(`${dir}: no .rego source next to the module`);
  const dataPath = join(dir, "data.json");
  const data = existsSync(dataPath) ? parseJson(readFileSync(dataPath, "utf8"), dataPath) : {};
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new Error(`${dir}: data must be a JSON object`);
  const inputsDir = join(dir, "inputs");
  if (!existsSync(inputsDir) || !statSync(inputsDir).isDirectory()) throw new Error(`${inputsDir}: missing (one JSON input per file)`);
  const inputs = readdirSync(inputsDir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f): PublicInput => {
      const text = readFileSync(join(inputsDir, f), "utf8");
      return { name: f, bytes: Buffer.byteLength(text), value: parseJson(text, join(inputsDir, f)) };
    });
  if (inputs.length === 0) throw new Error(`${inputsDir}: no .json input`);
  const epPath = join(dir, "entrypoint");
  const entrypoint = existsSync(epPath) ? readFileSync(epPath, "utf8").trim() : null;
  return { name, opaWasm, modules, data: data as Record<string, unknown>, entrypoint: entrypoint === "" ? null : entrypoint, inputs };
}

/** Every subdirectory of `root` as a case, in name order; one that cannot be read says why. */
export function loadCases(root: string): CaseResult[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((n): CaseResult => {
      try {
        return { case: loadCase(join(root, n)) };
      } catch (err) {
        return { name: n, unusable: err instanceof Error ? err.message : String(err) };
      }
    });
}
