/**
 * Mutable helpers the planner writes IR through: the static string table, the
 * builtin table, and a cursor that appends statements to the current block.
 */
import type { Block, BuiltinFunc, ConstValue, Local, Location, Operand, Stmt } from "./ir.js";
import { DATA, FIRST_FREE_LOCAL, INPUT } from "./ir.js";

/** Distributes `Omit` over the statement union (plain `Omit` would collapse it). */
export type StmtBody<S = Stmt> = S extends Stmt ? Omit<S, "loc"> : never;

export class StaticTable {
  readonly strings: string[] = [];
  readonly builtins: BuiltinFunc[] = [];
  readonly files: string[] = [];
  readonly consts: ConstValue[] = [];
  private readonly constIds = new Map<string, number>();
  private readonly stringIds = new Map<string, number>();
  private readonly builtinIds = new Map<string, number>();
  private readonly fileIds = new Map<string, number>();

  string(s: string): number {
    return intern(this.stringIds, this.strings, s, s);
  }

  /** Index of a ground value in `consts` (equal spellings share one). */
  constant(v: ConstValue): number {
    return intern(this.constIds, this.consts, JSON.stringify(v), v);
  }

  builtin(name: string, arity: number): void {
    if (this.builtinIds.has(name)) return;
    this.builtinIds.set(name, this.builtins.length);
    this.builtins.push({ name, arity });
  }

  file(name: string): number {
    return intern(this.fileIds, this.files, name, name);
  }
}

/** Index of `key` in `list`, appending `value` the first time. */
function intern<T>(ids: Map<string, number>, list: T[], key: string, value: T): number {
  let id = ids.get(key);
  if (id === undefined) {
    id = list.length;
    list.push(value);
    ids.set(key, id);
  }
  return id;
}

/** A lookup computed at most once per call of the function: its value and whether it ran. */
interface InvariantLookup {
  readonly value: Local;
  readonly done: Local;
}

/** Writes statements for one function or plan: locals and the current block. */
export class BlockWriter {
  private next: Local = FIRST_FREE_LOCAL;
  private current: Block;
  /** Loop bodies being planned around the cursor. */
  private loops = 0;
  /** `source/key` -> that lookup, for sources that are the same throughout a call. */
  private readonly lookups = new Map<string, InvariantLookup>();
  /** Locals holding the same value throughout a call: the documents and the lookups in them. */
  private readonly invariant = new Set<Local>([INPUT, DATA]);
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

  /** Whether the cursor is inside the body of a loop statement. */
  get inLoop(): boolean {
    return this.loops > 0;
  }

  /** Runs `fill`, which plans the body of a loop statement (see `invariantDot`). */
  loopBody<T>(fill: () => T): T {
    this.loops++;
    try {
      return fill();
    } finally {
      this.loops--;
    }
  }

  /**
   * Inside a loop body: `source[key]` when `source` is the input or data document (or
   * such a lookup) and `key` a constant, computed on its first use in the call and
   * reused by every later iteration and use site; null otherwise (plan the lookup where
   * it stands). Each use site runs the lookup unless an earlier one did, into a local
   * left unset when it is undefined, then fails where the lookup stood if it is unset.
   */
  invariantDot(source: Operand, key: Operand): Local | null {
    if (this.loops === 0 || source.kind !== "local" || key.kind !== "string" || !this.invariant.has(source.local)) return null;
    const id = `${source.local}/${key.index}`;
    let l = this.lookups.get(id);
    if (l === undefined) {
      l = { value: this.newLocal(), done: this.newLocal() };
      this.lookups.set(id, l);
      this.invariant.add(l.value);
    }
    const loc = this.loc;
    const once: Block = {
      stmts: [
        { type: "IsUndefinedStmt", source: l.done, loc },
        { type: "AssignIntStmt", value: 1, target: l.done, loc },
        { type: "BlockStmt", blocks: [{ stmts: [{ type: "DotStmt", source, key, target: l.value, loc }] }], loc },
      ],
    };
    this.emit({ type: "BlockStmt", blocks: [once] });
    this.emit({ type: "IsDefinedStmt", source: l.value });
    return l.value;
  }

  /** A new block filled by `fill`. */
  block(fill: () => void): Block {
    const b: Block = { stmts: [] };
    this.into(b, fill);
    return b;
  }
}

export type { Operand };
