/**
 * Lowers one IR function or plan to a function body of the module builder. IR locals map 1:1 to
 * wasm locals (0 input, 1 data, then params and locals); scratch locals for scans
 * come after. Every IR block is a named wasm block; an undefined statement branches
 * to the end of the innermost one.
 */
import * as binaryen from "../link/builder-api.js";
import type { Block, ConstValue, Local, Location, Operand, RuleResult, Stmt } from "../../plan/ir.js";
import { DATA, INPUT } from "../../plan/ir.js";
import type { Fuel } from "./fuel.js";
import type { CostOperand, FuelBuiltins } from "./fuel-builtins.js";
import type { Memo } from "./memo.js";
import type { MemberPosition } from "./member-positions.js";
import type { StaticData } from "./static-data.js";
import { CODE_EXPORTS as RT, T_ARRAY, T_BOOLEAN, T_NULL, T_NUMBER, T_OBJECT, T_SET, T_STRING } from "../../../src/policy/abi.js";
import type { RuntimeExportName } from "../../../src/policy/abi.js";

const i32 = binaryen.i32;
type Ref = binaryen.ExpressionRef;
/** Type-test builtins and the tag they test (RUNTIME-API.md section 2). */
const TYPE_TESTS = new Map([
  ["is_null", T_NULL], ["is_boolean", T_BOOLEAN], ["is_number", T_NUMBER], ["is_string", T_STRING],
  ["is_array", T_ARRAY], ["is_object", T_OBJECT], ["is_set", T_SET],
]);

/** What statement lowering needs from the module being built. */
export interface EmitEnv {
  readonly m: binaryen.Module;
  readonly data: StaticData;
  readonly strings: readonly string[];
  readonly files: readonly string[];
  /** Ground values of `MakeConstStmt`, laid out in static data. */
  readonly consts: readonly ConstValue[];
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
  /** Fuel prices of builtin calls (used only when `fuel` is set). */
  readonly fuelBuiltins: FuelBuiltins;
  /** Rule-value memoisation; null when the module is built without it. */
  readonly memo: Memo | null;
  /** Where an input object's member is likely to be (member-positions.ts); absent: no guesses. */
  readonly memberPosition?: MemberPosition;
}

export class FuncEmitter {
  private readonly labels: string[] = [];
  private labelCount = 0;
  private extra: number;

  /** `<document local>:<key string>` -> scratch local caching that lookup for the call. */
  private readonly lookups = new Map<string, number>();
  private facts: BodyFacts = { nulls: new Set(), stableDocs: false };

  constructor(
    private readonly env: EmitEnv,
    /** Number of IR locals (params included). */
    localCount: number,
    /** Local holding the result set (plans only). */
    private readonly resultSet: Local | null,
    /** Memo slot of the function (its value is remembered at every return), or null. */
    private readonly memoSlot: number | null = null,
    /**
     * A plan lowered to return its rule's value (into `out`) instead of a result set:
     * the `{"result": value}` wrapper is not built; a second, different value returns 0.
     */
    private readonly ruleValue: { readonly rule: RuleResult; readonly out: Local } | null = null,
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

  /** One unit of fuel at a function's entry when it needs one (`fuel-leaves.ts`; nothing when fuel is off). */
  entryTick(blocks: readonly Block[], checked: boolean): Ref[] {
    if (this.env.fuel === null) return [];
    if (!checked) {
      this.env.fuel.uncheckedFunction();
      return [];
    }
    return [this.env.fuel.entry(firstLocation(blocks))];
  }

  /** Return `l` from the function, remembering it first when the function is memoised. */
  returnLocal(l: Local): Ref {
    const m = this.env.m;
    if (this.memoSlot === null || this.env.memo === null) return m.return(this.get(l));
    return m.block(null, [this.env.memo.store(this.memoSlot, this.get(l)), m.return(this.get(l))]);
  }

  /** Lowers the body of the function or plan (all its blocks at once). */
  blocks(blocks: readonly Block[]): Ref[] {
    this.facts = bodyFacts(blocks);
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

  private call(rtName: RuntimeExportName, args: Ref[], result: binaryen.Type = i32): Ref {
    return this.env.m.call(this.env.rt(rtName), args, result);
  }

  operand(o: Operand): Ref {
    const m = this.env.m;
    switch (o.kind) {
      case "local": return this.get(o.local);
      case "string": return m.i32.const(this.env.data.string(this.env.strings[o.index]!));
      case "bool": return m.i32.const(this.env.data.scalar(o.value));
    }
  }

  /** A builtin operand as fuel pricing sees it: literal strings are priced at build time. */
  private costOperand(o: Operand): CostOperand {
    if (o.kind === "local") return { kind: "value", ref: () => this.get(o.local) };
    if (o.kind === "string") return { kind: "string", bytes: new TextEncoder().encode(this.env.strings[o.index]!).length };
    return { kind: "scalar" };
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
    return this.call(RT.runtimeError, [
      m.i32.const(d.cstring(this.env.files[loc.file] ?? "unknown")),
      m.i32.const(loc.row),
      m.i32.const(loc.col),
      m.i32.const(d.cstring(message)),
    ], binaryen.none);
  }

  stmt(s: Stmt): Ref {
    const m = this.env.m;
    const o = (x: Operand): Ref => this.operand(x);
    const rv = this.ruleValue;
    if (rv !== null) {
      const wrapper = rv.rule.wrapper;
      if ((s.type === "MakeObjectStmt" && s.target === wrapper) || (s.type === "ObjectInsertStmt" && s.object === wrapper)) return m.nop();
      if (s.type === "ResultSetAddStmt") {
        const differs = m.i32.and(
          m.i32.ne(this.get(rv.out), m.i32.const(0)),
          m.i32.eqz(this.call(RT.valueEqual, [this.get(rv.out), this.get(rv.rule.value)])),
        );
        return m.block(null, [m.if(differs, m.return(m.i32.const(0))), this.set(rv.out, this.get(rv.rule.value))]);
      }
    }
    switch (s.type) {
      case "ReturnLocalStmt": return this.returnLocal(s.source);
      case "CallStmt": return this.callStmt(s);
      case "BlockStmt": return m.block(null, s.blocks.map((b) => this.block(b)), binaryen.none);
      case "BreakStmt": return m.br(this.labels[this.labels.length - 1 - s.index]!);
      case "DotStmt": return this.dot(s.source, s.key, s.target);
      case "LenStmt": return this.set(s.target, this.call(RT.numberSize, [this.call(RT.valueLength, [o(s.source)])]));
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
            m.if(m.i32.eqz(this.call(RT.valueEqual, [this.get(s.target), this.get(src)])), this.runtimeError(s.loc, s.message)),
          ),
        ]);
      }
      case "ResetLocalStmt": return this.set(s.target, m.i32.const(0));
      case "MakeNullStmt": return this.set(s.target, m.i32.const(this.env.data.scalar(null)));
      case "MakeConstStmt": {
        const v = this.env.consts[s.index];
        if (v === undefined) throw new Error(`MakeConstStmt: no constant #${s.index}`);
        const cell = m.i32.const(this.env.data.value(v));
        return this.set(s.target, s.copy === true ? this.call(RT.valueShallowCopy, [cell]) : cell);
      }
      case "MakeNumberIntStmt": return this.set(s.target, m.i32.const(this.env.data.int(s.value)));
      case "MakeNumberRefStmt": {
        const [ptr, len] = this.env.data.raw(this.env.strings[s.index]!);
        return this.setOrFail(s.target, this.call(RT.numberRef, [m.i32.const(ptr), m.i32.const(len)]));
      }
      case "MakeArrayStmt": return this.set(s.target, this.call(RT.arrayWithCap, [m.i32.const(s.capacity)]));
      case "MakeObjectStmt": return this.set(s.target, this.call(RT.object, []));
      case "MakeSetStmt": return this.set(s.target, this.call(RT.set, []));
      case "EqualStmt": return this.failIf(m.i32.eqz(this.equal(s.a, s.b)));
      case "NotEqualStmt": return this.failIf(this.equal(s.a, s.b));
      case "IsArrayStmt": return this.typeIs(o(s.source), 5);
      case "IsObjectStmt": return this.typeIs(o(s.source), 6);
      case "IsSetStmt": return this.typeIs(o(s.source), 7);
      case "IsDefinedStmt": return this.failIf(m.i32.eqz(this.get(s.source)));
      case "IsUndefinedStmt": return this.failIf(m.i32.ne(this.get(s.source), m.i32.const(0)));
      case "ArrayAppendStmt": return this.call(RT.arrayAppend, [this.get(s.array), o(s.value)], binaryen.none);
      case "ObjectInsertStmt": return this.call(RT.objectInsert, [this.get(s.object), o(s.key), o(s.value)], binaryen.none);
      case "ObjectInsertOnceStmt":
        return m.if(
          m.i32.eqz(this.call(RT.objectInsertOnce, [this.get(s.object), o(s.key), o(s.value)])),
          this.runtimeError(s.loc, s.message),
        );
      case "ObjectMergeStmt": return this.setOrFail(s.target, this.call(RT.valueMerge, [this.get(s.a), this.get(s.b)]));
      case "SetAddStmt": return this.call(RT.setAdd, [this.get(s.set), o(s.value)], binaryen.none);
      case "WithStmt": return this.withStmt(s.local, s.path, o(s.value), s.target);
      case "NopStmt": return m.nop();
      case "CoverStmt": return m.i32.store8(0, 1, m.i32.const(this.env.coverageBase() + s.point), m.i32.const(1));
      case "ResultSetAddStmt":
        if (this.resultSet === null) throw new Error("ResultSetAddStmt outside a plan");
        return this.call(RT.setAdd, [this.get(this.resultSet), this.get(s.value)], binaryen.none);
    }
  }

  /**
   * `target = source[key]`. A constant-key lookup in the input or data document (which
   * no statement of the body reassigns) is made once per call and kept in a scratch local.
   */
  private dot(source: Operand, key: Operand, target: Local): Ref {
    const m = this.env.m;
    const get = (): Ref => this.member(source, key);
    const doc = source.kind === "local" && (source.local === INPUT || source.local === DATA) && key.kind === "string";
    if (!doc || !this.facts.stableDocs) return this.setOrFail(target, get());
    const id = `${source.local}:${key.index}`;
    let cached = this.lookups.get(id);
    if (cached === undefined) {
      cached = this.scratch();
      this.lookups.set(id, cached);
    }
    // An undefined member (0) is looked up again: rare, and still correct.
    return m.block(null, [m.if(m.i32.eqz(this.get(cached)), this.set(cached, get())), this.setOrFail(target, this.get(cached))]);
  }

  /**
   * `source[key]` through `opa_value_get`; for a constant key that input objects are
   * expected to hold at a known index (memberPosition), that index is tried first:
   * the key cell there is compared with the name's static cell, and only the very
   * cell counts (keys are unique, so it is the member whatever the object's order).
   * Data lookups are not guessed (the data document's keys are not static cells).
   */
  private member(source: Operand, key: Operand): Ref {
    const m = this.env.m;
    const call = (): Ref => this.call(RT.valueGet, [this.operand(source), this.operand(key)]);
    const guess = this.env.memberPosition;
    if (guess === undefined || key.kind !== "string" || source.kind !== "local" || source.local === DATA) return call();
    const name = this.env.strings[key.index]!;
    const at = guess(name, source.local === INPUT);
    if (at === undefined) return call();
    const cell = this.env.data.string(name);
    this.guessLocal ??= this.scratch();
    const d = this.guessLocal;
    const v = (): Ref => this.get(source.local);
    // Address 0 (undefined) reads harmlessly; the and() makes its tag irrelevant.
    const isObject = m.i32.and(m.i32.ne(v(), m.i32.const(0)), m.i32.eq(m.i32.load8_u(0, 1, v()), m.i32.const(T_OBJECT)));
    // The entry is read only when the object has one at that index (a read past the end could trap).
    const has = m.i32.gt_u(m.i32.load(4, 4, v()), m.i32.const(at));
    const same = m.i32.eq(m.i32.load(8 * at, 4, m.local.tee(d, m.i32.load(12, 4, v()), i32)), m.i32.const(cell));
    return m.if(isObject, m.if(has, m.if(same, m.i32.load(8 * at + 4, 4, m.local.get(d, i32)), call()), call()), call());
  }

  private guessLocal: number | undefined;

  /** 1 when the operands are equal. A comparison with a boolean constant reads the cell inline. */
  private equal(a: Operand, b: Operand): Ref {
    const m = this.env.m;
    const isNull = (o: Operand): boolean => o.kind === "local" && this.facts.nulls.has(o.local);
    const nullWith = isNull(b) ? a : isNull(a) ? b : null;
    if (nullWith !== null && nullWith.kind === "local") {
      const cell = (): Ref => this.get(nullWith.local);
      return m.i32.and(m.i32.ne(cell(), m.i32.const(0)), m.i32.eq(m.i32.load8_u(0, 1, cell()), m.i32.const(T_NULL)));
    }
    const [x, c] = b.kind === "bool" ? [a, b] : a.kind === "bool" ? [b, a] : [null, null];
    if (x === null || c === null || x.kind !== "local") return this.call(RT.valueEqual, [this.operand(a), this.operand(b)]);
    // A boolean cell is its tag and a 0/1 byte; 0 (undefined) equals nothing.
    const cell = (): Ref => this.get(x.local);
    const bits = T_BOOLEAN | ((c.value ? 1 : 0) << 8);
    return m.i32.and(m.i32.ne(cell(), m.i32.const(0)), m.i32.eq(m.i32.load16_u(0, 1, cell()), m.i32.const(bits)));
  }

  private typeIs(v: Ref, tag: number): Ref {
    const m = this.env.m;
    return this.failIf(m.i32.ne(this.call(RT.valueType, [v]), m.i32.const(tag)));
  }

  private callStmt(s: Extract<Stmt, { type: "CallStmt" }>): Ref {
    const m = this.env.m;
    const args = s.args.map((a) => this.operand(a));
    const target = this.env.callee(s.func);
    if (target.kind === "func") return this.setOrFail(s.result, m.call(target.name, args, i32));
    if (target.kind === "print") {
      return m.block(null, [
        m.call(target.println, [m.call(target.format, args, i32)], binaryen.none),
        this.set(s.result, m.i32.const(this.env.data.scalar(true))),
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
    const cost = this.env.fuel === null ? null : this.env.fuelBuiltins.cost(s.func, s.args.map((a) => this.costOperand(a)));
    const charged = (r: Ref): Ref => (cost === null ? r : m.block(null, [this.env.fuel!.charge("builtin", cost, s.loc), r]));
    const typeTag = target.kind === "native" && args.length === 1 ? TYPE_TESTS.get(s.func) : undefined;
    if (typeTag !== undefined) {
      // is_string(x) and friends: a tag test inline (they never fail for a defined x).
      const x = this.scratch();
      return charged(m.block(null, [
        this.set(x, args[0]!),
        this.failIf(m.i32.eqz(this.get(x))),
        this.set(s.result, m.select(
          m.i32.eq(m.i32.load8_u(0, 1, this.get(x)), m.i32.const(typeTag)),
          m.i32.const(this.env.data.scalar(true)),
          m.i32.const(this.env.data.scalar(false)),
        )),
      ]));
    }
    let invoke: Ref;
    if (target.kind === "host") {
      // Exact host builtins: operands go as tagged JSON text, the tagged result is rebuilt (sets, exact numbers).
      const operands = target.exact ? args.map((a) => this.call(RT.exactEncode, [a])) : args;
      const r = m.call(this.env.hostImport(target.arity), [m.i32.const(target.id), m.i32.const(0), ...operands], i32);
      invoke = this.setOrFail(s.result, target.exact ? this.call(RT.exactDecode, [r]) : r);
    } else invoke = this.setOrFail(s.result, m.call(target.name, args, i32));
    const call = charged(invoke);
    // Strict mode: builtin errors (native, or host ones reading tg_location) carry this call's location;
    // custom builtins' errors always abort, so their calls are located in every mode.
    if (!this.env.strict && !(target.kind === "host" && target.located)) return call;
    const d = this.env.data;
    const loc = s.loc;
    return m.block(null, [
      this.call(RT.setLocation, [m.i32.const(d.cstring(this.env.files[loc.file] ?? "unknown")), m.i32.const(loc.row), m.i32.const(loc.col)], binaryen.none),
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
        m.br(exit, m.i32.lt_u(this.call(RT.valueType, [this.get(source)]), m.i32.const(T_ARRAY))),
        this.set(n, this.call(RT.valueLength, [this.get(source)])),
        // A scan runs to its end (breaks leave only after it), so its fuel is paid up front.
        ...(this.env.fuel === null ? [] : [this.env.fuel.scan(this.get(n), loc)]),
        this.set(i, m.i32.const(0)),
        m.loop(loop, m.block(null, [
          m.br(exit, m.i32.ge_u(this.get(i), this.get(n))),
          this.set(key, this.call(RT.keyAt, [this.get(source), this.get(i)])),
          this.set(value, this.call(RT.valueAt, [this.get(source), this.get(i)])),
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
    const parts: Ref[] = [this.set(arr, this.call(RT.arrayWithCap, [m.i32.const(path.length)]))];
    for (const p of path) {
      parts.push(this.call(RT.arrayAppend, [this.get(arr), m.i32.const(this.env.data.string(this.env.strings[p]!))], binaryen.none));
    }
    parts.push(this.set(target, this.call(RT.valueUpsert, [this.get(base), this.get(arr), value])));
    return m.block(null, parts);
  }
}

/** Location of the first statement, for a function's entry check. */
function firstLocation(blocks: readonly Block[]): Location | undefined {
  for (const b of blocks) if (b.stmts.length > 0) return b.stmts[0]!.loc;
  return undefined;
}

/** What the lowering may assume of a whole body. */
interface BodyFacts {
  /** Locals whose only assignment is `MakeNullStmt`. */
  readonly nulls: ReadonlySet<Local>;
  /** No statement assigns the input or data local. */
  readonly stableDocs: boolean;
}

function bodyFacts(blocks: readonly Block[]): BodyFacts {
  const writes = new Map<Local, number>();
  const nullWrites = new Set<Local>();
  const wrote = (l: Local): void => void writes.set(l, (writes.get(l) ?? 0) + 1);
  const visit = (stmts: readonly Stmt[]): void => {
    for (const s of stmts) {
      if ("target" in s) wrote(s.target);
      if (s.type === "MakeNullStmt") nullWrites.add(s.target);
      if (s.type === "CallStmt") wrote(s.result);
      if (s.type === "ScanStmt") {
        wrote(s.key);
        wrote(s.value);
        visit(s.block.stmts);
      }
      if (s.type === "NotStmt") visit(s.block.stmts);
      if (s.type === "BlockStmt") for (const b of s.blocks) visit(b.stmts);
    }
  };
  for (const b of blocks) visit(b.stmts);
  const nulls = new Set([...nullWrites].filter((l) => writes.get(l) === 1));
  return { nulls, stableDocs: !writes.has(INPUT) && !writes.has(DATA) };
}
