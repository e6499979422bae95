/**
 * Data documents for tests, as `opa test` loads them: every `*.json` file under a
 * folder argument is merged into `data` at its folder's path relative to that
 * argument (`policies/data.json` -> `data`, `policies/x/data.json` -> `data.x`).
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Diagnostic } from "../diagnostics.js";

export type DataLoad = { readonly data: Record<string, unknown>; readonly errors: readonly Diagnostic[] };

export function loadDataFiles(paths: readonly string[]): DataLoad {
  const data: Record<string, unknown> = {};
  const errors: Diagnostic[] = [];
  for (const root of paths) {
    let isDir = false;
    try {
      isDir = statSync(root).isDirectory();
    } catch {
      continue;
    }
    if (!isDir) continue;
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        if (name.startsWith(".") || name === "node_modules") continue;
        const full = join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (name.endsWith(".json")) {
          const rel = relative(root, dir);
          const at = rel === "" ? [] : rel.split(sep);
          try {
            mergeAt(data, at, JSON.parse(readFileSync(full, "utf8")) as unknown, full);
          } catch (err) {
            errors.push({ code: "data_file_error", message: (err as Error).message, location: { file: full, row: 1, col: 1 } });
          }
        }
      }
    };
    walk(root);
  }
  return { data, errors };
}

function mergeAt(target: Record<string, unknown>, path: readonly string[], value: unknown, file: string): void {
  let node = target;
  for (const key of path) {
    const next = node[key];
    if (next === undefined) node[key] = {};
    else if (!isObject(next)) throw new Error(`${file}: conflicts with data at ${path.join(".")}`);
    node = node[key] as Record<string, unknown>;
  }
  if (!isObject(value)) throw new Error(`${file}: a data file must hold a JSON object`);
  merge(node, value, file);
}

function merge(into: Record<string, unknown>, from: Record<string, unknown>, file: string): void {
  for (const [k, v] of Object.entries(from)) {
    const cur = into[k];
    if (cur === undefined) into[k] = v;
    else if (isObject(cur) && isObject(v)) merge(cur, v, file);
    else throw new Error(`${file}: key ${JSON.stringify(k)} is defined by more than one data file`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
