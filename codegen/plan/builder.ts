/**
 * Mutable helpers the planner writes IR through: the static string table, the
 * builtin table, and a cursor that appends statements to the current block.
 */
import type { Block, BuiltinFunc, Local, Location, Operand, Stmt } from "./ir.js";
import { FIRST_FREE_LOCAL } from "./ir.js";

/** Distributes `Omit` over the statement union (plain `Omit` would collapse it). */
export type StmtBody<S = Stmt> = S extends Stmt ? Omit<S, "loc"> : never;

export class StaticTable {
  readonly strings: string[] = [];
  readonly builtins: BuiltinFunc[] = [];
  readonly files: string[] = [];
  private readonly stringIds = new Map<string, number>();
  private readonly builtinIds = new Map<string, number>();
  private readonly fileIds = new Map<string, number>();

  string(s: string): number {
    let id = this.stringIds.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(s);
      this.stringIds.set(s, id);
    }
    return id;
  }

  builtin(name: string, arity: number): void {
    if (this.builtinIds.has(name)) return;
    this.builtinIds.set(name, this.builtins.length);
    this.builtins.push({ name, arity });
  }

  file(name: string): number {
    let id = this.fileIds.get(name);
    if (id === undefined) {
      id = this.files.length;
      this.files.push(name);
      this.fileIds.set(name, id);
    }
    return id;
  }
}

/** Writes statements for one function or plan: locals and the current block. */
export class BlockWriter {
  private next: Local = FIRST_FREE_LOCAL;
  private current: Block;
  loc: Location = { file: 0, row: 0, col: 0 };

  constructor(readonly root: Block = { stmts: [] }) {
    this.current = root;
  }

  newLocal(): Local {
    return this.next++;
  }

  /** Locals below this number are in use (params included). */
  get localCount(): number {
    return this.next;
  }

  reserve(upTo: Local): void {
    if (this.next <= upTo) this.next = upTo + 1;
  }

  emit(s: StmtBody): void {
    this.current.stmts.push({ ...s, loc: this.loc } as Stmt);
  }

  /** Runs `fill` with statements going into `block`, then restores the cursor. */
  into<T>(block: Block, fill: () => T): T {
    const prev = this.current;
    this.current = block;
    try {
      return fill();
    } finally {
      this.current = prev;
    }
  }

  /** A new block filled by `fill`. */
  block(fill: () => void): Block {
    const b: Block = { stmts: [] };
    this.into(b, fill);
    return b;
  }
}

export type { Operand };
