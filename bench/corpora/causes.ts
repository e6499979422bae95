/** Groups diagnostics into causes: locations, quoted names and numbers do not split a cause. */
export function causeOf(message: string): string {
  return message
    .split("\n")[0]!
    .replace(/^[^\s:]+:\d+(:\d+)?:\s*/, "")
    .replace(/var [A-Za-z_][A-Za-z0-9_]*/g, "var _")
    .replace(/rule data(\.[A-Za-z0-9_$]+)+/g, "rule data...")
    .replace(/\d+/g, "N")
    .slice(0, 140);
}

export class Tally {
  private readonly counts = new Map<string, number>();
  constructor(private readonly verbose = false) {}
  add(cause: string, where?: string): void {
    if (this.verbose) console.log(`${cause}\n    ${where ?? ""}`);
    this.counts.set(cause, (this.counts.get(cause) ?? 0) + 1);
  }
  sorted(): [string, number][] {
    return [...this.counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  }
}
