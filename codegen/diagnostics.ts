/**
 * The one structured diagnostic type of the build tools (tools.yaml loader and the
 * Rego compiler). Codes are stable snake_case strings; rows and columns are 1-based.
 */
export interface SourceLocation {
  readonly file: string;
  readonly row: number;
  readonly col: number;
}

export interface Diagnostic {
  readonly code: string;
  readonly message: string;
  readonly location: SourceLocation;
  /** One line telling the user what to change. */
  readonly hint?: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** `file:row:col code: message` — the form every CLI prints. */
export function formatDiagnostic(d: Diagnostic): string {
  const head = `${d.location.file}:${d.location.row}:${d.location.col} ${d.code}: ${d.message}`;
  return d.hint === undefined ? head : `${head}\n  hint: ${d.hint}`;
}

/** Orders diagnostics by file, then position, so output is stable. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  if (a.location.file !== b.location.file) return a.location.file < b.location.file ? -1 : 1;
  return a.location.row - b.location.row || a.location.col - b.location.col;
}

/** Collects diagnostics up to a cap; past the cap it only counts. */
export class DiagnosticSink {
  readonly diagnostics: Diagnostic[] = [];
  dropped = 0;
  constructor(readonly cap: number) {}
  add(d: Diagnostic): void {
    if (this.diagnostics.length < this.cap) this.diagnostics.push(d);
    else this.dropped++;
  }
  get full(): boolean {
    return this.diagnostics.length >= this.cap;
  }
  sorted(): Diagnostic[] {
    return [...this.diagnostics].sort(compareDiagnostics);
  }
}
