/**
 * Collects output lines, each tagged with the source row it came from, and puts
 * comments back: a comment goes before the first line whose source row is past
 * it, or at the end of the line that starts on its row when it trails code.
 */
import type { Comment } from "../ast.js";

export class Printer {
  private readonly out: string[] = [];
  private readonly pending: Comment[];

  constructor(comments: readonly Comment[]) {
    this.pending = [...comments].sort((a, b) => a.location.row - b.location.row || a.location.col - b.location.col);
  }

  /** Emits one line at `depth` tabs; `row` is the source row of its first token (0: none). */
  line(depth: number, text: string, row = 0): void {
    if (row > 0) this.flushBefore(row, depth);
    this.out.push(`${"\t".repeat(depth)}${text}`);
    if (row > 0) this.trailing(row);
  }

  /** Continues the last line (`} else ...`); comments from before `row` go after it. */
  appendToLast(text: string, row: number): void {
    this.out[this.out.length - 1] += text;
    if (row > 0) this.trailing(row);
  }

  private trailing(row: number): void {
    let t = "";
    while (this.pending.length > 0 && this.pending[0]!.location.row === row) t += ` #${this.pending.shift()!.text}`;
    this.out[this.out.length - 1] += t;
  }

  blank(): void {
    if (this.out.length > 0 && this.out[this.out.length - 1] !== "") this.out.push("");
  }

  /** Comments that precede source row `row`, indented to `depth`. */
  flushBefore(row: number, depth: number): void {
    while (this.pending.length > 0 && this.pending[0]!.location.row < row) {
      this.out.push(`${"\t".repeat(depth)}#${this.pending.shift()!.text}`);
    }
  }

  finish(): string {
    if (this.pending.length > 0) {
      this.blank();
      for (const c of this.pending.splice(0)) this.out.push(`#${c.text}`);
    }
    while (this.out.length > 0 && this.out[this.out.length - 1] === "") this.out.pop();
    return `${this.out.join("\n")}\n`;
  }
}
