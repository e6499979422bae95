/**
 * Which parts of `input` a plan can reach, from the IR alone. The result is a tree:
 * `true` means the whole value at that path, an object lists the only members the
 * policy can look at (`{}`: the value itself but none of its members). A host may
 * write just these parts of the input and the plan decides exactly as on the whole
 * input: every member a plan reads goes through a `DotStmt` with a static key, and
 * anything else done with an input value (a dynamic key, a scan, a builtin other
 * than a type test, a comparison with a non-constant, putting it into a result)
 * counts as reading all of it. Scalars and arrays are always written whole; only
 * objects are pruned, so type tests and comparisons with constants still see the
 * right kind of value.
 *
 * The analysis is flow-insensitive (a local holds the union of everything assigned
 * to it anywhere) and context-insensitive across functions (a parameter holds the
 * union over all call sites), iterated to a fixed point.
 */
import type { Block, Func, Local, Operand, Plan, Policy, Stmt } from "../../plan/ir.js";
import { DATA, INPUT } from "../../plan/ir.js";
import type { InputPaths } from "../../../src/policy/abi.js";

/** Builtins whose result depends only on the operand's type (and on nothing inside a composite). */
const TYPE_ONLY = new Set(["is_string", "is_number", "is_boolean", "is_null", "is_object", "is_array", "is_set", "type_name"]);

/** Deeper static paths are cut off there: the value at the limit is read whole. */
const MAX_DEPTH = 16;

/** What a local may hold: input values at these paths, and whether anything but scalar constants besides. */
interface Abs {
  readonly paths: Set<string>;
  other: boolean;
}

const key = (path: readonly string[]): string => JSON.stringify(path);

class Analysis {
  private readonly locals = new Map<string, Map<Local, Abs>>();
  private readonly params = new Map<string, Abs[]>();
  private readonly returns = new Map<string, Abs>();
  readonly reached = new Set<string>();
  readonly whole = new Set<string>();
  private changed = false;
  private readonly funcs: Map<string, Func>;
  private readonly strings: readonly string[];

  constructor(policy: Policy) {
    this.strings = policy.static.strings;
    this.funcs = new Map(policy.funcs.map((f) => [f.name, f]));
    for (const f of policy.funcs) {
      this.params.set(f.name, f.params.map(() => ({ paths: new Set(), other: false })));
      this.returns.set(f.name, { paths: new Set(), other: false });
    }
  }

  run(plan: Plan): void {
    do {
      this.changed = false;
      const root = this.scope(`plan:${plan.name}`);
      this.join(root, INPUT, { paths: new Set([key([])]), other: false });
      this.other(root, DATA);
      this.blocks(root, plan.blocks, null);
      for (const f of this.funcs.values()) {
        const scope = this.scope(`func:${f.name}`);
        f.params.forEach((p, i) => this.join(scope, p, this.params.get(f.name)![i]!));
        this.blocks(scope, f.blocks, f.name);
      }
    } while (this.changed);
  }

  private scope(name: string): Map<Local, Abs> {
    let s = this.locals.get(name);
    if (s === undefined) {
      s = new Map();
      this.locals.set(name, s);
    }
    return s;
  }

  /** A local nothing was seen assigning to may hold anything. */
  private get(scope: Map<Local, Abs>, l: Local): Abs {
    return scope.get(l) ?? { paths: new Set(), other: true };
  }

  private operand(scope: Map<Local, Abs>, o: Operand): Abs {
    return o.kind === "local" ? this.get(scope, o.local) : { paths: new Set(), other: false };
  }

  private join(scope: Map<Local, Abs>, l: Local, v: Abs): void {
    let cur = scope.get(l);
    if (cur === undefined) {
      cur = { paths: new Set(), other: false };
      scope.set(l, cur);
    }
    this.joinInto(cur, v);
  }

  private joinInto(cur: Abs, v: Abs): void {
    for (const p of v.paths) {
      if (!cur.paths.has(p)) {
        cur.paths.add(p);
        this.changed = true;
      }
    }
    if (v.other && !cur.other) {
      cur.other = true;
      this.changed = true;
    }
  }

  private other(scope: Map<Local, Abs>, l: Local): void {
    this.join(scope, l, { paths: new Set(), other: true });
  }

  private readWhole(v: Abs): void {
    for (const p of v.paths) {
      if (!this.whole.has(p)) {
        this.whole.add(p);
        this.changed = true;
      }
    }
  }

  private wholeOperands(scope: Map<Local, Abs>, ...os: Operand[]): void {
    for (const o of os) this.readWhole(this.operand(scope, o));
  }

  /** Equality with a scalar constant needs the value's kind and scalar value only. */
  private compare(scope: Map<Local, Abs>, a: Operand, b: Operand): void {
    const va = this.operand(scope, a);
    const vb = this.operand(scope, b);
    const constant = (v: Abs): boolean => v.paths.size === 0 && !v.other;
    if (!constant(vb)) this.readWhole(va);
    if (!constant(va)) this.readWhole(vb);
  }

  private blocks(scope: Map<Local, Abs>, blocks: readonly Block[], func: string | null): void {
    for (const b of blocks) for (const s of b.stmts) this.stmt(scope, s, func);
  }

  private stmt(scope: Map<Local, Abs>, s: Stmt, func: string | null): void {
    switch (s.type) {
      case "DotStmt": {
        const src = this.operand(scope, s.source);
        if (src.other || src.paths.size === 0) this.other(scope, s.target);
        if (src.paths.size === 0) return;
        if (s.key.kind !== "string") {
          this.readWhole(src);
          this.other(scope, s.target);
          return;
        }
        const k = this.keyString(s.key.index);
        const next = new Set<string>();
        for (const p of src.paths) {
          const path = JSON.parse(p) as string[];
          if (path.length >= MAX_DEPTH) {
            this.readWhole({ paths: new Set([p]), other: false });
            this.other(scope, s.target);
            continue;
          }
          const child = key([...path, k]);
          if (!this.reached.has(child)) {
            this.reached.add(child);
            this.changed = true;
          }
          next.add(child);
        }
        this.join(scope, s.target, { paths: next, other: false });
        return;
      }
      case "CallStmt": {
        const callee = this.funcs.get(s.func);
        if (callee !== undefined) {
          const params = this.params.get(s.func)!;
          s.args.forEach((a, i) => {
            const p = params[i];
            if (p !== undefined) this.joinInto(p, this.operand(scope, a));
          });
          this.join(scope, s.result, this.returns.get(s.func)!);
          return;
        }
        if (!TYPE_ONLY.has(s.func)) this.wholeOperands(scope, ...s.args);
        this.other(scope, s.result);
        return;
      }
      case "ReturnLocalStmt":
        if (func !== null) this.joinInto(this.returns.get(func)!, this.get(scope, s.source));
        else this.readWhole(this.get(scope, s.source));
        return;
      case "BlockStmt":
        for (const b of s.blocks) this.blocks(scope, [b], func);
        return;
      case "NotStmt":
        this.blocks(scope, [s.block], func);
        return;
      case "ScanStmt":
        this.readWhole(this.get(scope, s.source));
        this.other(scope, s.key);
        this.other(scope, s.value);
        this.blocks(scope, [s.block], func);
        return;
      case "AssignVarStmt":
        this.join(scope, s.target, this.operand(scope, s.source));
        return;
      case "AssignVarOnceStmt":
        // A second assignment is compared with the first: that reads the value whole.
        this.wholeOperands(scope, s.source);
        this.join(scope, s.target, this.operand(scope, s.source));
        return;
      case "EqualStmt":
      case "NotEqualStmt":
        this.compare(scope, s.a, s.b);
        return;
      case "LenStmt":
        this.wholeOperands(scope, s.source);
        this.other(scope, s.target);
        return;
      case "ArrayAppendStmt":
      case "SetAddStmt":
        this.wholeOperands(scope, s.value);
        return;
      case "ObjectInsertStmt":
      case "ObjectInsertOnceStmt":
        this.wholeOperands(scope, s.key, s.value);
        return;
      case "ObjectMergeStmt":
        this.readWhole(this.get(scope, s.a));
        this.readWhole(this.get(scope, s.b));
        this.other(scope, s.target);
        return;
      case "WithStmt":
        this.readWhole(this.get(scope, s.local));
        this.wholeOperands(scope, s.value);
        this.other(scope, s.target);
        return;
      case "ResultSetAddStmt":
        this.readWhole(this.get(scope, s.value));
        return;
      case "MakeConstStmt":
      case "MakeArrayStmt":
      case "MakeObjectStmt":
      case "MakeSetStmt":
        this.other(scope, s.target);
        return;
      case "MakeNullStmt":
      case "MakeNumberIntStmt":
      case "MakeNumberRefStmt":
      case "AssignIntStmt":
        // Scalar constants: scope entry without paths and without `other`.
        if (!scope.has(s.target)) scope.set(s.target, { paths: new Set(), other: false });
        return;
      case "IsArrayStmt":
      case "IsObjectStmt":
      case "IsSetStmt":
      case "IsDefinedStmt":
      case "IsUndefinedStmt":
      case "ResetLocalStmt":
      case "BreakStmt":
      case "NopStmt":
      case "CoverStmt":
        return;
      default: {
        const unknown: never = s;
        throw new Error(`input paths: unhandled statement ${JSON.stringify(unknown)}`);
      }
    }
  }

  private keyString(index: number): string {
    const k = this.strings[index];
    if (k === undefined) throw new Error(`input paths: no static string ${index}`);
    return k;
  }
}

/** The input paths of each plan, by entrypoint name. */
export function inputPaths(policy: Policy): Record<string, InputPaths> {
  const out: Record<string, InputPaths> = {};
  for (const plan of policy.plans) {
    const a = new Analysis(policy);
    a.run(plan);
    out[plan.name] = toTree(a.reached, a.whole);
  }
  return out;
}

function toTree(reached: ReadonlySet<string>, whole: ReadonlySet<string>): InputPaths {
  if (whole.has(key([]))) return true;
  type Node = { [k: string]: Node | true };
  // Null-prototype nodes: a member named "__proto__" is a member like any other.
  const node0 = (): Node => Object.create(null) as Node;
  const root: Node = node0();
  const paths = [...reached].map((p) => JSON.parse(p) as string[]).sort((a, b) => a.length - b.length);
  for (const path of paths) {
    let node: Node | true = root;
    for (let i = 0; i < path.length && node !== true; i++) {
      const k = path[i]!;
      const isWhole = whole.has(key(path.slice(0, i + 1)));
      const next: Node | true | undefined = Object.prototype.hasOwnProperty.call(node, k) ? node[k] : undefined;
      if (isWhole) node[k] = true;
      else if (next === undefined) node[k] = node0();
      node = node[k]!;
    }
  }
  return root;
}

/** Bytes of one member entry of a paths node in module memory (codegen/wasm/assembly/input-paths.ts). */
const ENTRY_SIZE = 24;

/**
 * The input paths of every entrypoint as the runtime library reads them (layout in
 * codegen/wasm/assembly/input-paths.ts), to be placed at address `at`: entrypoint `i`
 * is `planNames[i]`; `keyCell` gives the static string cell of a member name, which a
 * projected parse uses as that member's key.
 */
export function inputPathsTable(planNames: readonly string[], trees: Readonly<Record<string, InputPaths>>, keyCell: (name: string) => number, at: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  const align8 = (n: number): number => (n + 7) & ~7;
  let size = align8(4 + 4 * planNames.length);
  const node = (t: InputPaths): number => {
    if (t === true) return 0;
    // in the runtime's key order (by UTF-8 bytes): a projected parse fills the members in this order
    const names = Object.keys(t)
      .map((name) => ({ name, utf8: new TextEncoder().encode(name) }))
      .sort((a, b) => compareBytes(a.utf8, b.utf8))
      .map((x) => x.name);
    // a hash table of twice the members or more, when every index fits its byte
    const bits = names.length === 0 || names.length > 255 ? 0 : Math.max(2, Math.ceil(Math.log2(names.length * 2)));
    const table = 8 + ENTRY_SIZE * names.length;
    const bytes = new Uint8Array(align8(table + (bits === 0 ? 0 : 1 << bits)));
    const addr = at + size;
    size += bytes.length;
    chunks.push(bytes);
    const dv = new DataView(bytes.buffer);
    dv.setUint32(0, names.length, true);
    dv.setUint32(4, bits, true);
    names.forEach((name, i) => {
      const e = 8 + ENTRY_SIZE * i;
      const utf8 = new TextEncoder().encode(name);
      dv.setUint32(e, utf8.length, true);
      dv.setUint32(e + 4, keyCell(name), true);
      const prefix = new Uint8Array(8);
      prefix.set(utf8.subarray(0, 8));
      bytes.set(prefix, e + 16);
      dv.setUint32(e + 8, node(t[name]!), true);
      dv.setUint32(e + 12, i, true);
      if (bits !== 0) {
        const pv = new DataView(prefix.buffer);
        let h = memberHash(utf8.length, pv.getUint32(0, true), pv.getUint32(4, true)) >>> (32 - bits);
        while (bytes[table + h] !== 0) h = (h + 1) & ((1 << bits) - 1);
        bytes[table + h] = i + 1;
      }
    });
    return addr;
  };
  const roots = planNames.map((name) => {
    const t = trees[name];
    if (t === undefined) throw new Error(`input paths: no tree for entrypoint ${name}`);
    return node(t);
  });
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, roots.length, true);
  roots.forEach((r, i) => dv.setUint32(4 + 4 * i, r, true));
  let o = align8(4 + 4 * planNames.length);
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/** memberHash of codegen/wasm/assembly/input-paths.ts: a key's length and the two halves of its first eight bytes. */
function memberHash(len: number, lo: number, hi: number): number {
  return Math.imul((lo ^ Math.imul(hi, 0x01000193) ^ len) >>> 0, 0x9e3779b1) >>> 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
