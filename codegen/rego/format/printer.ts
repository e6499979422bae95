/**
 * Collects output lines, each tagged with the source row it came from, and puts
 * comments back: a comment goes before the first line whose source row is past
 * it, or at the end of the line that starts on its row when it trails code.
 * Trailing comments are kept apart from the code so that a line can still be
 * continued (`} else := 0`) after one was attached.
 */
import type { Comment } from "../ast.js";

interface Line {
  text: string;
  tail: string;
}

export class Printer {
  private readonly out: Line[] = [];
  private readonly pending: Comment[];

  constructor(comments: readonly Comment[]) {
    this.pending = [...comments].sort((a, b) => a.location.row - b.location.row || a.location.col - b.location.col);
  }

  /** Emits one line at `depth` tabs; `row` is the source row of its first token (0: none). */
  line(depth: number, text: string, row = 0): void {
    if (row > 0) this.flushBefore(row, depth);
    // A multi-line text (a literal split over lines) gets its trailing comment on
    // its first line, where the comment's row still is after reformatting.
    const [first, ...rest] = text.split("\n");
    this.out.push({ text: `${"\t".repeat(depth)}${first}`, tail: "" });
    const at = this.out.length - 1;
    for (const r of rest) this.out.push({ text: r, tail: "" });
    if (row > 0) this.trailing(row, at);
  }

  /** Continues the last line (`} else ...`); comments from before `row` go after it. */
  appendToLast(text: string, row: number): void {
    const last = this.out[this.out.length - 1];
    if (last === undefined) return;
    last.text += text;
    if (row > 0) this.trailing(row);
  }

  private trailing(row: number, index = this.out.length - 1): void {
    const last = this.out[index];
    while (last !== undefined && this.pending.length > 0 && this.pending[0]!.location.row === row) {
      last.tail += ` #${this.pending.shift()!.text}`;
    }
  }

  blank(): void {
    const last = this.out[this.out.length - 1];
    if (last !== undefined && (last.text !== "" || last.tail !== "")) this.out.push({ text: "", tail: "" });
  }

  /** Comments that precede source row `row`, indented to `depth`. */
  flushBefore(row: number, depth: number): void {
    while (this.pending.length > 0 && this.pending[0]!.location.row < row) {
      this.out.push({ text: `${"\t".repeat(depth)}#${this.pending.shift()!.text}`, tail: "" });
    }
  }

  finish(): string {
    if (this.pending.length > 0) {
      this.blank();
      for (const c of this.pending.splice(0)) this.out.push({ text: `#${c.text}`, tail: "" });
    }
    const lines = this.out.map((l) => `${l.text}${l.tail}`);
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return `${lines.join("\n")}\n`;
  }
}
