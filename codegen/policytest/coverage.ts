/**
 * Turns the compiler's coverage points and the bytes the module recorded into
 * covered / not-covered lines per file (OPA's `opa test --coverage`, by line).
 */
export interface CoveragePoint {
  readonly file: string;
  readonly row: number;
  readonly kind: "expr" | "head";
}

export interface FileCoverage {
  readonly file: string;
  readonly covered: readonly number[];
  readonly notCovered: readonly number[];
  readonly percent: number;
}

export interface CoverageReport {
  readonly files: readonly FileCoverage[];
  readonly covered: number;
  readonly notCovered: number;
  readonly percent: number;
}

const pct = (covered: number, notCovered: number): number =>
  covered + notCovered === 0 ? 100 : (100 * covered) / (covered + notCovered);

/**
 * A line is covered when any point on it was hit, not covered when it has points
 * and none was hit. `ignore` drops lines that should not count (e.g. `todo_` tests).
 */
export function buildCoverage(
  points: readonly CoveragePoint[],
  hits: Uint8Array,
  ignore: (file: string, row: number) => boolean = () => false,
): CoverageReport {
  const lines = new Map<string, Map<number, boolean>>();
  points.forEach((p, i) => {
    if (ignore(p.file, p.row)) return;
    const rows = lines.get(p.file) ?? new Map<number, boolean>();
    lines.set(p.file, rows);
    rows.set(p.row, (rows.get(p.row) ?? false) || hits[i] === 1);
  });
  let covered = 0;
  let notCovered = 0;
  const files = [...lines.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([file, rows]) => {
      const sorted = [...rows.entries()].sort(([a], [b]) => a - b);
      const c = sorted.filter(([, hit]) => hit).map(([row]) => row);
      const n = sorted.filter(([, hit]) => !hit).map(([row]) => row);
      covered += c.length;
      notCovered += n.length;
      return { file, covered: c, notCovered: n, percent: pct(c.length, n.length) };
    });
  return { files, covered, notCovered, percent: pct(covered, notCovered) };
}

/** `[3, 4, 5, 9]` -> `"3-5, 9"`: how pretty output lists lines. */
export function formatRanges(rows: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < rows.length; ) {
    let j = i;
    while (j + 1 < rows.length && rows[j + 1] === rows[j]! + 1) j++;
    parts.push(i === j ? `${rows[i]}` : `${rows[i]}-${rows[j]}`);
    i = j + 1;
  }
  return parts.join(", ");
}
