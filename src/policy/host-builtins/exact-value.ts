/**
 * Rego values as exact host builtins see them (the "exact" protocol of the builtin
 * registry): the module sends each operand as JSON text in which every object is
 * {"o": [[key, value], ...]} and every set {"s": [...]}, numbers digit for digit, and
 * takes the result back in the same form (codegen/wasm/assembly/builtins/exact.ts).
 * Here they become values that keep what plain JSON loses: sets, non-string object
 * keys, `1.0` apart from `1`, integers beyond 2^53.
 */
import { BuiltinError } from "./errors.js";

export class RegoNumber {
  constructor(readonly text: string) {}
  /** An integer as OPA's Int() reads it (no fraction or exponent in the text). */
  get isInt(): boolean {
    return /^-?\d+$/.test(this.text);
  }
}
export class RegoObject {
  constructor(readonly entries: readonly (readonly [Value, Value])[]) {}
  get(key: Value): Value | undefined {
    return this.entries.find(([k]) => valueEqual(k, key))?.[1];
  }
}
export class RegoSet {
  constructor(readonly items: readonly Value[]) {}
  has(x: Value): boolean {
    return this.items.some((i) => valueEqual(i, x));
  }
}
export type Value = null | boolean | string | RegoNumber | readonly Value[] | RegoObject | RegoSet;

/** Rego equality: numbers by value (`1 == 1.0`), objects and sets regardless of order. */
export function valueEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a instanceof RegoNumber) return b instanceof RegoNumber && numberKey(a) === numberKey(b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => valueEqual(x, (b as readonly Value[])[i]!));
  if (a instanceof RegoObject) {
    return b instanceof RegoObject && a.entries.length === b.entries.length && a.entries.every(([k, v]) => {
      const w = b.get(k);
      return w !== undefined && valueEqual(v, w);
    });
  }
  if (a instanceof RegoSet) return b instanceof RegoSet && a.items.length === b.items.length && a.items.every((x) => b.has(x));
  return false;
}

/** A number's value as a comparable string: integers exactly, others as the nearest double. */
function numberKey(n: RegoNumber): string {
  if (n.isInt) return BigInt(n.text).toString();
  const d = Number(n.text);
  return Number.isInteger(d) && Math.abs(d) <= Number.MAX_SAFE_INTEGER ? BigInt(d).toString() : String(d);
}

/** A key for a value in a Map: Rego-equal values give the same key. */
export function valueKey(v: Value): string {
  if (v instanceof RegoNumber) return `n${numberKey(v)}`;
  if (typeof v === "string") return `s${JSON.stringify(v)}`;
  if (v === null || typeof v === "boolean") return `c${String(v)}`;
  if (Array.isArray(v)) return `a[${v.map(valueKey).join(",")}]`;
  if (v instanceof RegoObject) return `o{${v.entries.map(([k, x]) => `${valueKey(k)}:${valueKey(x)}`).sort().join(",")}}`;
  return `t{${(v as RegoSet).items.map(valueKey).sort().join(",")}}`;
}

// ---------------------------------------------------------------- the protocol's text

/** Parses tagged JSON text (numbers keep their text). */
export function parseExact(text: string): Value {
  let i = 0;
  const bad = (): never => {
    throw new BuiltinError("eval_builtin_error", `malformed exact operand at offset ${i}`);
  };
  const ws = (): void => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const value = (): Value => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      const key = value();
      ws();
      if (text[i++] !== ":") bad();
      const body = value();
      ws();
      if (text[i++] !== "}" || !Array.isArray(body)) bad();
      const items = body as readonly Value[];
      if (key === "s") return new RegoSet(items);
      if (key !== "o") return bad();
      return new RegoObject(items.map((p) => (Array.isArray(p) && p.length === 2 ? ([p[0], p[1]] as const) : bad())));
    }
    if (c === "[") {
      i++;
      const out: Value[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return out;
      }
      for (;;) {
        out.push(value());
        ws();
        const d = text[i++];
        if (d === "]") return out;
        if (d !== ",") bad();
      }
    }
    if (c === '"') {
      const start = i;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
      return JSON.parse(text.slice(start, i)) as string;
    }
    const m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i));
    if (m === null) return bad();
    i += m[0].length;
    if (m[0] === "true") return true;
    if (m[0] === "false") return false;
    if (m[0] === "null") return null;
    return new RegoNumber(m[0]);
  };
  const v = value();
  ws();
  if (i !== text.length) bad();
  return v;
}

/** The tagged JSON text of a value (the form a result goes back in). */
export function writeExact(v: Value): string {
  if (v instanceof RegoNumber) return v.text;
  if (v === null || typeof v === "boolean") return String(v);
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(writeExact).join(",")}]`;
  if (v instanceof RegoObject) return `{"o":[${v.entries.map(([k, x]) => `[${writeExact(k)},${writeExact(x)}]`).join(",")}]}`;
  return `{"s":[${(v as RegoSet).items.map(writeExact).join(",")}]}`;
}

// ---------------------------------------------------------------- plain JSON (modules built before the protocol)

export function fromJson(v: unknown): Value {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return new RegoNumber(String(v));
  if (Array.isArray(v)) return v.map(fromJson);
  return new RegoObject(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromJson(x)] as const));
}

export function toJson(v: Value): unknown {
  if (v instanceof RegoNumber) return Number(v.text);
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof RegoSet) return v.items.map(toJson);
  if (v instanceof RegoObject) return Object.fromEntries(v.entries.map(([k, x]) => [typeof k === "string" ? k : writeExact(k), toJson(x)]));
  return v;
}
