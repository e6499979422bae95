/** The difference between an approval's original arguments and an edit, by JSON path (what the edit page shows). */
import type { JsonValue } from "../manifest.js";

export interface ArgChange {
  /** JSON Pointer of the field, e.g. "/amount". */
  readonly path: string;
  readonly kind: "changed" | "added" | "removed";
  readonly before?: JsonValue;
  readonly after?: JsonValue;
}

const isObject = (v: JsonValue | undefined): v is { [k: string]: JsonValue } => typeof v === "object" && v !== null && !Array.isArray(v);
const pointer = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

export function diffArgs(before: JsonValue, after: JsonValue, path = ""): ArgChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k): ArgChange[] => {
      const p = `${path}/${pointer(k)}`;
      if (!(k in after)) return [{ path: p, kind: "removed", before: before[k]! }];
      if (!(k in before)) return [{ path: p, kind: "added", after: after[k]! }];
      return diffArgs(before[k]!, after[k]!, p);
    });
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ path: path === "" ? "/" : path, kind: "changed", before, after }];
}
