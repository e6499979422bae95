/**
 * Prints bench rows: per row, toolgate's figure, each anchor measured in the same run,
 * and toolgate's speed relative to it; skipped sources say why.
 */
import { formatValue, ratioText } from "./rows.js";
import type { RowResult } from "./rows.js";

export interface SourceReport {
  readonly source: string;
  readonly result: RowResult | { readonly failed: string };
}

export function reportText(reports: readonly SourceReport[]): string {
  const out: string[] = [];
  for (const { source, result } of reports) {
    if ("skipped" in result) {
      out.push(`[${source}] skipped: ${result.skipped}`, "");
      continue;
    }
    if ("failed" in result) {
      out.push(`[${source}] FAILED: ${result.failed}`, "");
      continue;
    }
    for (const row of result.rows) {
      out.push(`[${source}] ${row.what}`);
      const figure = (label: string, v: number): string => `${label.padEnd(44)} ${formatValue(v).padStart(12)} ${row.unit}`;
      out.push(`  toolgate  ${figure(row.toolgate.label, row.toolgate.value)}`);
      for (const a of row.anchors) out.push(`  anchor    ${figure(a.label, a.value)}   ratio ${ratioText(row, a)}`);
      if (row.anchors.length === 0) out.push(`  anchor    none measured in this run${row.notes === undefined || row.notes.length === 0 ? " (the source gave no reason)" : ": see the note"}`);
      for (const n of row.notes ?? []) out.push(`  note      ${n}`);
      out.push("");
    }
    for (const m of result.missing ?? []) out.push(`[${source}] not measured: ${m}`);
    if ((result.missing ?? []).length > 0) out.push("");
  }
  return out.join("\n");
}

export function printReport(reports: readonly SourceReport[]): void {
  process.stdout.write(`${reportText(reports)}\n`);
}
