/**
 * Lowers one IR function or plan to a function body of the module builder. IR locals map 1:1 to
 * wasm locals (0 input, 1 data, then params and locals); scratch locals for scans
 * come after. Every IR block is a named wasm block; an undefined statement branches
 * to the end of the innermost one.
 */
import * as binaryen from "../link/builder-api.js";
import type { Block, Local, Location, Operand, Stmt } from "../../plan/ir.js";
import type { Fuel } from "./fuel.js";
import type { Memo } from "./memo.js";
import type { StaticData } from "./static-data.js";

const i32 = binaryen.i32;
type Ref = binaryen.ExpressionRef;

/** What statement lowering needs from the module being built. */
export interface EmitEnv {
  readonly m: binaryen.Module;
  readonly data: StaticData;
  readonly strings: readonly string[];
  readonly files: readonly string[];
  /** Runtime export name -> internal function name. */
  rt(name: string): string;
  /** Call target for a CallStmt: a generated function or a builtin. */
  callee(name: string):
    | { kind: "func"; name: string }
    | { kind: "native"; name: string }
    | { kind: "host"; id: number; arity: number; located: boolean; exact: boolean }
    | { kind: "print"; format: string; println: string };
  hostImport(arity: number): string;
  /** Address of coverage byte 0 (static data, below the heap base). */
  coverageBase(): number;
  /** The global caching time.now_ns for one evaluation. */
  nowGlobal(): string;
  readonly strict: boolean;
  /** Step counting for bounded evaluation; null when the module is built without it. */
  readonly fuel: Fuel | null;
  /** Rule-value memoisation; null when the module is built without it. */
  readonly memo: Memo | null;
}

export class FuncEmitter {
  private readonly labels: string[] = [];
  private labelCount = 0;
  private extra: number;

  constructor(
    private readonly env: EmitEnv,
    /** Number of IR locals (params included). */
    localCount: number,
    /** Local holding the result set (plans only). */
    private readonly resultSet: Local | null,
    /** Memo slot of the function (its value is remembered at every return), or null. */
    private readonly memoSlot: number | null = null,
  ) {
    this.extra = localCount;
  }

  /** Allocates a scratch wasm local beyond the IR locals. */
  scratch(): number {
    return this.extra++;
  }

  get totalLocals(): number {
    return this.extra;
  }

  /** One unit of fuel at a function's entry (nothing when fuel is off). */
  entryTick(blocks: readonly Block[]): Ref[] {
    return this.env.fuel === null ? [] : [this.env.fuel.tick(firstLocation(blocks))];
  }

  /** Return `l` from the function, remembering it first when the function is memoised. */
  returnLocal(l: Local): Ref {
    const m = this.env.m;
    if (this.memoSlot === null || this.env.memo === null) return m.return(this.get(l));
    return m.block(null, [this.env.memo.store(this.memoSlot, this.get(l)), m.return(this.get(l))]);
  }

  blocks(blocks: readonly Block[]): Ref[] {
    return blocks.map((b) => this.block(b));
  }

  block(b: Block, tail: Ref[] = []): Ref {
    const label = `B${this.labelCount++}`;
    this.labels.push(label);
    const body = b.stmts.map((s) => this.stmt(s));
    this.labels.pop();
    return this.env.m.block(label, [...body, ...tail], binaryen.none);
  }

  private get fail(): string {
    return this.labels[this.labels.length - 1]!;
  }

  private get(l: Local): Ref {
    return this.env.m.local.get(l, i32);
  }

  private set(l: Local, v: Ref): Ref {
    return this.env.m.local.set(l, v);
  }

  private call(rtName: string, args: Ref[], result: binaryen.Type = i32): Ref {
    return this.env.m.call(this.env.rt(rtName), args, result);
  }

  operand(o: Operand): Ref {
    const m = this.env.m;
    switch (o.kind) {
      case "local": return this.get(o.local);
      case "string": return m.i32.const(this.env.data.string(this.env.strings[o.index]!));
      case "bool": return this.call("opa_boolean", [m.i32.const(o.value ? 1 : 0)]);
    }
  }

  /** Branch to the innermost block's end when `cond` is non-zero. */
  private failIf(cond: Ref): Ref {
    return this.env.m.br(this.fail, cond);
  }

  /** `target = value`, undefined (0) fails. */
  private setOrFail(target: Local, value: Ref): Ref {
    const m = this.env.m;
    return m.block(null, [this.set(target, value), this.failIf(m.i32.eqz(this.get(target)))]);
  }

  private runtimeError(loc: Location, message: string): Ref {
    const m = this.env.m;
    const d = this.env.data;
    return this.call("opa_runtime_error", [
      m.i32.const(d.cstring(this.env.files[loc.file] ?? "unknown")),
      m.i32.const(loc.row),
      m.i32.const(loc.col),
      m.i32.const(d.cstring(message)),
    ], binaryen.none);
  }

  stmt(s: Stmt): Ref {
    const m = this.env.m;
    const o = (x: Operand): Ref => this.operand(x);
    switch (s.type) {
      case "ReturnLocalStmt": return this.returnLocal(s.source);
      case "CallStmt": return this.callStmt(s);
      case "BlockStmt": return m.block(null, this.blocks(s.blocks), binaryen.none);
      case "BreakStmt": return m.br(this.labels[this.labels.length - 1 - s.index]!);
      case "DotStmt": return this.setOrFail(s.target, this.call("opa_value_get", [o(s.source), o(s.key)]));
      case "LenStmt": return this.set(s.target, this.call("opa_number_size", [this.call("opa_value_length", [o(s.source)])]));
      case "ScanStmt": return this.scan(s.source, s.key, s.value, s.block, s.loc);
      case "NotStmt": return this.block(s.block, [m.br(this.fail)]);
      case "AssignIntStmt": return this.set(s.target, m.i32.const(this.env.data.int(s.value)));
      case "AssignVarStmt": return this.set(s.target, o(s.source));
      case "AssignVarOnceStmt": {
        const src = this.scratch();
        return m.block(null, [
          this.set(src, o(s.source)),
          m.if(
            m.i32.eqz(this.get(s.target)),
            this.set(s.target, this.get(src)),
            m.if(m.i32.eqz(this.call("tg_value_equal", [this.get(s.target), this.get(src)])), this.runtimeError(s.loc, s.message)),
          ),
        ]);
      }
      case "ResetLocalStmt": return this.set(s.target, m.i32.const(0));
      case "MakeNullStmt": return this.set(s.target, this.call("opa_null", []));
      case "MakeNumberIntStmt": return this.set(s.target, m.i32.const(this.env.data.int(s.value)));
      case "MakeNumberRefStmt": {
        const [ptr, len] = this.env.data.raw(this.env.strings[s.index]!);
        return this.setOrFail(s.target, this.call("opa_number_ref", [m.i32.const(ptr), m.i32.const(len)]));
      }
      case "MakeArrayStmt": return this.set(s.target, this.call("opa_array_with_cap", [m.i32.const(s.capacity)]));
      case "MakeObjectStmt": return this.set(s.target, this.call("opa_object", []));
      case "MakeSetStmt": return this.set(s.target, this.call("opa_set", []));
      case "EqualStmt": return this.failIf(m.i32.eqz(this.call("tg_value_equal", [o(s.a), o(s.b)])));
      case "NotEqualStmt": return this.failIf(this.call("tg_value_equal", [o(s.a), o(s.b)]));
      case "IsArrayStmt": return this.typeIs(o(s.source), 5);
      case "IsObjectStmt": return this.typeIs(o(s.source), 6);
      case "IsSetStmt": return this.typeIs(o(s.source), 7);
      case "IsDefinedStmt": return this.failIf(m.i32.eqz(this.get(s.source)));
      case "IsUndefinedStmt": return this.failIf(m.i32.ne(this.get(s.source), m.i32.const(0)));
      case "ArrayAppendStmt": return this.call("opa_array_append", [this.get(s.array), o(s.value)], binaryen.none);
      case "ObjectInsertStmt": return this.call("opa_object_insert", [this.get(s.object), o(s.key), o(s.value)], binaryen.none);
      case "ObjectInsertOnceStmt":
        return m.if(
          m.i32.eqz(this.call("tg_object_insert_once", [this.get(s.object), o(s.key), o(s.value)])),
          this.runtimeError(s.loc, s.message),
        );
      case "ObjectMergeStmt": return this.setOrFail(s.target, this.call("opa_value_merge", [this.get(s.a), this.get(s.b)]));
      case "SetAddStmt": return this.call("opa_set_add", [this.get(s.set), o(s.value)], binaryen.none);
      case "WithStmt": return this.withStmt(s.local, s.path, o(s.value), s.target);
      case "NopStmt": return m.nop();
      case "CoverStmt": return m.i32.store8(0, 1, m.i32.const(this.env.coverageBase() + s.point), m.i32.const(1));
      case "ResultSetAddStmt":
        if (this.resultSet === null) throw new Error("ResultSetAddStmt outside a plan");
        return this.call("opa_set_add", [this.get(this.resultSet), this.get(s.value)], binaryen.none);
    }
  }

  private typeIs(v: Ref, tag: number): Ref {
    const m = this.env.m;
    return this.failIf(m.i32.ne(this.call("opa_value_type", [v]), m.i32.const(tag)));
  }

  private callStmt(s: Extract<Stmt, { type: "CallStmt" }>): Ref {
    const m = this.env.m;
    const args = s.args.map((a) => this.operand(a));
    const target = this.env.callee(s.func);
    if (target.kind === "func") return this.setOrFail(s.result, m.call(target.name, args, i32));
    if (target.kind === "print") {
      return m.block(null, [
        m.call(target.println, [m.call(target.format, args, i32)], binaryen.none),
        this.set(s.result, this.call("opa_boolean", [m.i32.const(1)])),
      ]);
    }
    if (target.kind === "host" && s.func === "time.now_ns") {
      // One clock reading per evaluation, as OPA: cached in a global that eval resets.
      const g = this.env.nowGlobal();
      const read = m.call(this.env.hostImport(0), [m.i32.const(target.id), m.i32.const(0)], i32);
      return m.block(null, [
        m.if(m.i32.eqz(m.global.get(g, i32)), m.global.set(g, read)),
        this.setOrFail(s.result, m.global.get(g, i32)),
      ]);
    }
    let call: Ref;
    if (target.kind === "host") {
      // Exact host builtins: operands go as tagged JSON text, the tagged result is rebuilt (sets, exact numbers).
      const operands = target.exact ? args.map((a) => this.call("tg_exact_encode", [a])) : args;
      const r = m.call(this.env.hostImport(target.arity), [m.i32.const(target.id), m.i32.const(0), ...operands], i32);
      call = this.setOrFail(s.result, target.exact ? this.call("tg_exact_decode", [r]) : r);
    } else call = this.setOrFail(s.result, m.call(target.name, args, i32));
    // Strict mode: builtin errors (native, or host ones reading tg_location) carry this call's location;
    // custom builtins' errors always abort, so their calls are located in every mode.
    if (!this.env.strict && !(target.kind === "host" && target.located)) return call;
    const d = this.env.data;
    const loc = s.loc;
    return m.block(null, [
      this.call("tg_set_location", [m.i32.const(d.cstring(this.env.files[loc.file] ?? "unknown")), m.i32.const(loc.row), m.i32.const(loc.col)], binaryen.none),
      call,
    ]);
  }

  /**
   * Index-based scan over arrays, objects and sets. The statement is defined when the
   * body completed at least once (so `not` over an iteration means "no solution").
   */
  private scan(source: Local, key: Local, value: Local, body: Block, loc: Location): Ref {
    const m = this.env.m;
    const n = this.scratch();
    const i = this.scratch();
    const found = this.scratch();
    const exit = `S${this.labelCount++}`;
    const loop = `L${this.labelCount++}`;
    const fail = this.fail;
    return m.block(null, [
      this.set(found, m.i32.const(0)),
      m.block(exit, [
        m.br(exit, m.i32.lt_u(this.call("opa_value_type", [this.get(source)]), m.i32.const(5))),
        this.set(n, this.call("opa_value_length", [this.get(source)])),
        this.set(i, m.i32.const(0)),
        m.loop(loop, m.block(null, [
          m.br(exit, m.i32.ge_u(this.get(i), this.get(n))),
          ...(this.env.fuel === null ? [] : [this.env.fuel.tick(loc)]),
          this.set(key, this.call("tg_key_at", [this.get(source), this.get(i)])),
          this.set(value, this.call("tg_value_at", [this.get(source), this.get(i)])),
          this.set(i, m.i32.add(this.get(i), m.i32.const(1))),
          this.block(body, [this.set(found, m.i32.const(1))]),
          m.br(loop),
        ])),
      ]),
      m.br(fail, m.i32.eqz(this.get(found))),
    ]);
  }

  private withStmt(base: Local, path: readonly number[], value: Ref, target: Local): Ref {
    const m = this.env.m;
    if (path.length === 0) return this.set(target, value);
    const arr = this.scratch();
    const parts: Ref[] = [this.set(arr, this.call("opa_array_with_cap", [m.i32.const(path.length)]))];
    for (const p of path) {
      parts.push(this.call("opa_array_append", [this.get(arr), m.i32.const(this.env.data.string(this.env.strings[p]!))], binaryen.none));
    }
    parts.push(this.set(target, this.call("tg_value_upsert", [this.get(base), this.get(arr), value])));
    return m.block(null, parts);
  }
}

/** Location of the first statement, for a function's entry check. */
function firstLocation(blocks: readonly Block[]): Location | undefined {
  for (const b of blocks) if (b.stmts.length > 0) return b.stmts[0]!.loc;
  return undefined;
}
