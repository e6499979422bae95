/**
 * Executes a parsed template as Go's text/template does with missingkey=error
 * (OPA's strings.render_template): Rego numbers are json.Number (a string kind in
 * comparisons), template literals are Go ints and floats, maps print as
 * `map[k:v]` with sorted keys, a missing map key is an error.
 */
import { builtinError } from "./errors.js";
import { location, type Command, type Node, type Operand, type Pipeline } from "./go-template-parse.js";

/** A number from the data (Go: json.Number). */
export class JsonNumber {
  constructor(readonly text: string) {}
}
/** A number written in the template or computed by a function (Go: int or float64). */
class GoNumber {
  constructor(
    readonly value: number,
    readonly int: boolean,
  ) {}
}

type Value = string | boolean | null | JsonNumber | GoNumber | Value[] | { [k: string]: Value };

const isMap = (v: unknown): v is Record<string, Value> => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber) && !(v instanceof GoNumber);

/** Rego JSON into template values. */
export function fromJson(v: unknown): Value {
  if (typeof v === "number") return new JsonNumber(String(v));
  if (Array.isArray(v)) return v.map(fromJson);
  if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromJson(x)]));
  return v as Value;
}

function goType(v: Value | undefined): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (v instanceof JsonNumber) return "json.Number";
  if (v instanceof GoNumber) return v.int ? "int" : "float64";
  return Array.isArray(v) ? "[]interface {}" : "map[string]interface {}";
}

function formatFloat(f: number): string {
  if (Number.isInteger(f) && Math.abs(f) < 1e21) {
    const exp = Math.floor(Math.log10(Math.abs(f) || 1));
    if (exp < 21 && exp >= Math.max(6, String(Math.abs(f)).replace(/0+$/, "").length)) return f.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
  }
  return String(f).replace(/e([+-])(\d)$/, "e$10$2");
}

/** fmt's %v. */
function show(v: Value): string {
  if (v === null) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  if (v instanceof JsonNumber) return v.text;
  if (v instanceof GoNumber) return v.int ? String(v.value) : formatFloat(v.value);
  if (Array.isArray(v)) return `[${v.map(show).join(" ")}]`;
  return `map[${Object.keys(v).sort().map((k) => `${k}:${show(v[k]!)}`).join(" ")}]`;
}

function truth(v: Value | undefined): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return v !== "";
  if (v instanceof JsonNumber) return v.text !== "";
  if (v instanceof GoNumber) return v.value !== 0;
  return Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0;
}

type Kind = "bool" | "int" | "float" | "string" | "other";
function kind(v: Value): Kind {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string" || v instanceof JsonNumber) return "string";
  if (v instanceof GoNumber) return v.int ? "int" : "float";
  return "other";
}
const scalar = (v: Value): string | number | boolean => (v instanceof JsonNumber ? v.text : v instanceof GoNumber ? v.value : (v as string | boolean));

class Break {}
class Continue {}

const HTML: Record<string, string> = { "&": "&amp;", "'": "&#39;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "\0": "\uFFFD" };

export function executeTemplate(src: string, nodes: readonly Node[], data: Value): string {
  let out = "";
  const scopes: Map<string, Value>[] = [new Map([["$", data]])];
  const fail = (pos: number, at: string, message: string): never => {
    throw builtinError(`template: ${location(src, pos)}: executing "template" at <${at}>: ${message}`);
  };
  const lookupVar = (name: string, pos: number): Value => {
    for (let i = scopes.length - 1; i >= 0; i--) if (scopes[i]!.has(name)) return scopes[i]!.get(name)!;
    return fail(pos, name, `undefined variable: ${name}`);
  };

  const field = (op: Extract<Operand, { kind: "field" }>, dot: Value): Value => {
    let v: Value = op.base === null ? dot : operand(op.base, dot);
    for (const name of op.names) {
      if (isMap(v)) {
        if (!Object.hasOwn(v, name)) fail(op.pos, op.text, `map has no entry for key "${name}"`);
        v = v[name]!;
      } else if (v === null) fail(op.pos, op.text, `nil pointer evaluating interface {}.${name}`);
      else fail(op.pos, op.text, `can't evaluate field ${name} in type ${goType(v)}`);
    }
    return v;
  };

  const operand = (op: Operand, dot: Value): Value => {
    switch (op.kind) {
      case "dot":
        return dot;
      case "field":
        return field(op, dot);
      case "var":
        return lookupVar(op.name, op.pos);
      case "string":
        return op.value;
      case "number":
        return new GoNumber(op.value, op.int);
      case "bool":
        return op.value;
      case "nil":
        return null;
      case "pipe":
        return pipeline(op.pipe, dot);
      case "ident":
        return call(op, op.name, [], dot, undefined);
    }
  };

  const compare = (name: string, at: string, pos: number, a: Value, b: Value): number => {
    const ka = kind(a);
    const kb = kind(b);
    if (ka === "other" || kb === "other") fail(pos, at, `error calling ${name}: ${name === "eq" || name === "ne" ? "non-comparable type" : "invalid type for comparison"}`);
    if (ka !== kb) fail(pos, at, `error calling ${name}: incompatible types for comparison`);
    if (ka === "bool" && name !== "eq" && name !== "ne") fail(pos, at, `error calling ${name}: invalid type for comparison`);
    const x = scalar(a);
    const y = scalar(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };

  const call = (fn: Extract<Operand, { kind: "ident" }>, at: string, argOps: readonly Operand[], dot: Value, piped: Value | undefined): Value => {
    const name = fn.name;
    // and/or evaluate their arguments lazily, as Go does
    if (name === "and" || name === "or") {
      const all = [...argOps.map((a) => () => operand(a, dot)), ...(piped === undefined ? [] : [() => piped])];
      if (all.length === 0) fail(fn.pos, at, `wrong number of args for ${name}: want at least 1 got 0`);
      let v: Value = null;
      for (const get of all) {
        v = get();
        if (truth(v) !== (name === "and")) return v;
      }
      return v;
    }
    const args = [...argOps.map((a) => operand(a, dot)), ...(piped === undefined ? [] : [piped])];
    const arity = (n: number): void => {
      if (args.length !== n) fail(fn.pos, at, `wrong number of args for ${name}: want ${n} got ${args.length}`);
    };
    switch (name) {
      case "not":
        arity(1);
        return !truth(args[0]);
      case "len": {
        arity(1);
        const v = args[0]!;
        if (typeof v === "string") return new GoNumber(Buffer.byteLength(v), true);
        if (v instanceof JsonNumber) return new GoNumber(v.text.length, true);
        if (Array.isArray(v)) return new GoNumber(v.length, true);
        if (isMap(v)) return new GoNumber(Object.keys(v).length, true);
        return fail(fn.pos, at, `error calling len: len of type ${goType(v)}`);
      }
      case "index": {
        if (args.length < 1) fail(fn.pos, at, "wrong number of args for index: want at least 1 got 0");
        let v: Value = args[0]!;
        for (const k of args.slice(1)) {
          if (isMap(v)) {
            if (typeof k !== "string") fail(fn.pos, at, `error calling index: value has type ${goType(k)}; should be string`);
            v = Object.hasOwn(v, k as string) ? v[k as string]! : null;
          } else if (Array.isArray(v)) {
            if (!(k instanceof GoNumber) || !k.int) fail(fn.pos, at, `error calling index: cannot index slice/array with type ${goType(k)}`);
            const i = (k as GoNumber).value;
            if (i < 0 || i >= v.length) fail(fn.pos, at, `error calling index: index out of range: ${i}`);
            v = v[i]!;
          } else fail(fn.pos, at, `error calling index: can't index item of type ${goType(v)}`);
        }
        return v;
      }
      case "print":
        return args.map((a, i) => (i > 0 && typeof a !== "string" && typeof args[i - 1] !== "string" ? " " : "") + show(a)).join("");
      case "println":
        return `${args.map(show).join(" ")}\n`;
      case "printf": {
        if (typeof args[0] !== "string") return fail(fn.pos, at, `error calling printf: format is not a string`);
        let i = 1;
        return args[0].replace(/%([-+# 0]*\d*(?:\.\d+)?)([vsdqtxXf%])/g, (m, flags: string, verb: string) => {
          if (verb === "%") return "%";
          if (i >= args.length) return `%!${verb}(MISSING)`;
          const a = args[i++]!;
          if (verb === "q") return JSON.stringify(show(a));
          if (verb === "d" && a instanceof GoNumber && a.int) return String(a.value);
          if (verb === "f" && a instanceof GoNumber) return a.value.toFixed(/\.(\d+)/.exec(flags)?.[1] ? Number(/\.(\d+)/.exec(flags)![1]) : 6);
          if (verb === "v" || verb === "s" || verb === "t") return show(a);
          return m;
        });
      }
      case "html":
        return args.map(show).join("").replace(/[&'<>"\0]/g, (c) => HTML[c]!);
      case "urlquery":
        return encodeURIComponent(args.map(show).join("")).replace(/%20/g, "+").replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
      case "eq": {
        if (args.length < 2) fail(fn.pos, at, "error calling eq: missing argument for comparison");
        return args.slice(1).some((b) => compare(name, at, fn.pos, args[0]!, b) === 0);
      }
      case "ne":
        arity(2);
        return compare(name, at, fn.pos, args[0]!, args[1]!) !== 0;
      case "lt":
      case "le":
      case "gt":
      case "ge": {
        arity(2);
        const c = compare(name, at, fn.pos, args[0]!, args[1]!);
        return name === "lt" ? c < 0 : name === "le" ? c <= 0 : name === "gt" ? c > 0 : c >= 0;
      }
      default:
        return fail(fn.pos, at, `function "${name}" not supported by strings.render_template here`);
    }
  };

  const command = (cmd: Command, dot: Value, piped: Value | undefined): Value => {
    const [head, ...rest] = cmd.ops;
    if (head!.kind === "ident") return call(head!, cmd.text, rest, dot, piped);
    if (rest.length > 0 || piped !== undefined) fail(cmd.pos, cmd.text, `can't give argument to non-function ${cmd.text.split(/\s/)[0]}`);
    return operand(head!, dot);
  };

  const pipeline = (pipe: Pipeline, dot: Value): Value => {
    let v: Value | undefined;
    for (const cmd of pipe.cmds) v = command(cmd, dot, v);
    const result = v!;
    if (pipe.decl.length === 1) {
      if (pipe.assign) {
        const scope = [...scopes].reverse().find((s) => s.has(pipe.decl[0]!));
        if (scope === undefined) fail(pipe.pos, pipe.decl[0]!, `undefined variable: ${pipe.decl[0]}`);
        scope!.set(pipe.decl[0]!, result);
      } else scopes[scopes.length - 1]!.set(pipe.decl[0]!, result);
    }
    return result;
  };

  const scoped = (fn: () => void): void => {
    scopes.push(new Map());
    try {
      fn();
    } finally {
      scopes.pop();
    }
  };

  const run = (list: readonly Node[], dot: Value): void => {
    for (const n of list) {
      switch (n.kind) {
        case "text":
          out += n.text;
          break;
        case "action": {
          const v = pipeline(n.pipe, dot);
          if (n.pipe.decl.length === 0) out += v === null ? "<no value>" : show(v);
          break;
        }
        case "if":
        case "with":
          scoped(() => {
            const v = pipeline(n.pipe, dot);
            if (truth(v)) run(n.then, n.kind === "with" ? v : dot);
            else run(n.else, dot);
          });
          break;
        case "range":
          scoped(() => range(n, dot));
          break;
        case "break":
          throw new Break();
        case "continue":
          throw new Continue();
      }
    }
  };

  const range = (n: Extract<Node, { kind: "range" }>, dot: Value): void => {
    const names = n.pipe.decl;
    const v = pipeline({ ...n.pipe, decl: [] }, dot);
    let entries: [Value, Value][];
    if (Array.isArray(v)) entries = v.map((x, i) => [new GoNumber(i, true), x]);
    else if (isMap(v)) entries = Object.keys(v).sort().map((k) => [k, v[k]!]);
    else if (v instanceof GoNumber && v.int) entries = Array.from({ length: Math.max(0, v.value) }, (_, i) => [new GoNumber(i, true), new GoNumber(i, true)]);
    else if (v === null) entries = [];
    else return fail(n.pipe.pos, "range", `range can't iterate over ${show(v)}`);
    if (entries.length === 0) return run(n.else, dot);
    for (const [k, x] of entries) {
      const scope = scopes[scopes.length - 1]!;
      if (names.length === 1) scope.set(names[0]!, x);
      if (names.length === 2) {
        scope.set(names[0]!, k);
        scope.set(names[1]!, x);
      }
      try {
        run(n.body, x);
      } catch (e) {
        if (e instanceof Break) break;
        if (!(e instanceof Continue)) throw e;
      }
    }
  };

  run(nodes, data);
  return out;
}
