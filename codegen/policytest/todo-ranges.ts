/**
 * Lines that belong to `todo_` tests: they never run, so coverage ignores them. A
 * rule spans from its head row to the row before the next rule (or the file's end).
 */
import type { Module } from "../rego/ast.js";

export function todoRanges(modules: readonly Module[]): (file: string, row: number) => boolean {
  const ranges: { file: string; from: number; to: number }[] = [];
  for (const m of modules) {
    const rows = m.rules.map((r) => r.location.row);
    m.rules.forEach((r, i) => {
      const head = r.head.ref[0];
      if (head?.type === "var" && head.name.startsWith("todo_")) {
        ranges.push({ file: m.file, from: rows[i]!, to: (rows[i + 1] ?? Number.MAX_SAFE_INTEGER) - 1 });
      }
    });
  }
  return (file, row) => ranges.some((r) => r.file === file && row >= r.from && row <= r.to);
}
