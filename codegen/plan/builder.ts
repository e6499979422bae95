/**
 * Mutable helpers the planner writes IR through: the static string table, the
 * builtin table, and a cursor that appends statements to the current block.
 */
import type { Block, BuiltinFunc, Local, Location, Operand, Stmt } from "./ir.js";
import { DATA, FIRST_FREE_LOCAL, INPUT } from "./ir.js";

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

/** The outermost loop being planned: where invariant lookups go, and those made so far. */
interface LoopFrame {
  /** The block the loop statement will be appended to (after its body is planned). */
  readonly before: Block;
  /** `source/key` -> the local holding that lookup. */
  readonly lookups: Map<string, Local>;
  /** Locals whose value is the same on every iteration: the documents and the hoisted lookups. */
  readonly invariant: Set<Local>;
}

/** Writes statements for one function or plan: locals and the current block. */
export class BlockWriter {
  private next: Local = FIRST_FREE_LOCAL;
  private current: Block;
  private loop: LoopFrame | null = null;
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

  /**
   * Runs `fill`, which plans the body of a loop statement that the caller appends to
   * the current block afterwards. Inside the outermost such body, `hoistedDot` moves
   * invariant lookups in front of that loop.
   */
  loopBody<T>(fill: () => T): T {
    if (this.loop !== null) return fill();
    this.loop = { before: this.current, lookups: new Map(), invariant: new Set([INPUT, DATA]) };
    try {
      return fill();
    } finally {
      this.loop = null;
    }
  }

  /**
   * Inside a loop body: the local holding `source[key]` computed once in front of the
   * outermost loop, when `source` is the input or data document (or such a lookup) and
   * `key` a constant; null otherwise (plan the lookup where it stands). The local is
   * unset when the lookup is undefined: the caller checks it where the lookup stood,
   * so an undefined lookup still fails only there.
   */
  hoistedDot(source: Operand, key: Operand): Local | null {
    const loop = this.loop;
    if (loop === null || source.kind !== "local" || key.kind !== "string" || !loop.invariant.has(source.local)) return null;
    const id = `${source.local}/${key.index}`;
    const known = loop.lookups.get(id);
    if (known !== undefined) return known;
    const target = this.newLocal();
    const loc = this.loc;
    loop.before.stmts.push(
      { type: "ResetLocalStmt", target, loc },
      { type: "BlockStmt", blocks: [{ stmts: [{ type: "DotStmt", source, key, target, loc }] }], loc },
    );
    loop.lookups.set(id, target);
    loop.invariant.add(target);
    return target;
  }

  /** A new block filled by `fill`. */
  block(fill: () => void): Block {
    const b: Block = { stmts: [] };
    this.into(b, fill);
    return b;
  }
}

export type { Operand };
