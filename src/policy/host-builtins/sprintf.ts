/**
 * sprintf with Go's fmt semantics, the way OPA calls it: integral numbers are Go
 * ints (big ints beyond int64), other numbers float64, strings strings, anything
 * else its Rego text. The SDK's own `sprintf` (sprintf-js) differs: `%v` of an
 * array, `%d` of a float, `%!` error forms.
 */
import { operandTypeError } from "./errors.js";
import { regoText } from "./rego-text.js";

type Arg = { kind: "int"; v: bigint; big: boolean } | { kind: "float"; v: number } | { kind: "string"; v: string };

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

function toArg(x: unknown): Arg {
  if (typeof x === "number") {
    if (Number.isInteger(x)) {
      const b = BigInt(x);
      return { kind: "int", v: b, big: b > INT64_MAX || b < INT64_MIN };
    }
    return { kind: "float", v: x };
  }
  if (typeof x === "string") return { kind: "string", v: x };
  return { kind: "string", v: regoText(x) };
}

const typeOf = (a: Arg): string => (a.kind === "int" ? (a.big ? "*big.Int" : "int") : a.kind === "float" ? "float64" : "string");
const plain = (a: Arg): string => (a.kind === "int" ? a.v.toString() : a.kind === "float" ? gFloat(a.v, -1, false) : a.v);

interface Spec { minus: boolean; plus: boolean; space: boolean; zero: boolean; sharp: boolean; width: number | null; prec: number | null }

function pad(s: string, spec: Spec, numeric: boolean): string {
  if (spec.width === null || s.length >= spec.width) return s;
  const n = spec.width - s.length;
  if (spec.minus) return s + " ".repeat(n);
  if (spec.zero && numeric) {
    const sign = /^[+\- ]/.test(s) ? s[0]! : "";
    return sign + "0".repeat(n) + s.slice(sign.length);
  }
  return " ".repeat(n) + s;
}

function signed(s: string, neg: boolean, spec: Spec): string {
  return (neg ? "-" : spec.plus ? "+" : spec.space ? " " : "") + s;
}

/** Go's %e mantissa/exponent form: at least two exponent digits. */
function eFloat(f: number, prec: number, upper: boolean): string {
  const s = f.toExponential(prec < 0 ? undefined : prec).replace(/e([+-])(\d)$/, "e$10$2");
  return upper ? s.toUpperCase() : s;
}

/** Go's %g; prec -1 is the shortest form, which switches to an exponent from 1e+06 up (strconv). */
function gFloat(f: number, prec: number, upper: boolean): string {
  if (!Number.isFinite(f)) return Number.isNaN(f) ? "NaN" : f > 0 ? "+Inf" : "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const shortest = prec < 0;
  const digits = shortest ? f.toExponential().split("e")[0]!.replace(/[.-]/g, "").length : Math.max(prec, 1);
  const exp = Math.floor(Math.log10(Math.abs(Number(f.toExponential(shortest ? undefined : digits - 1)))));
  const eprec = shortest ? 6 : digits;
  if (exp < -4 || exp >= eprec) {
    let s = f.toExponential(shortest ? undefined : digits - 1);
    if (!shortest) s = s.replace(/\.?0+e/, "e");
    s = s.replace(/e([+-])(\d)$/, "e$10$2");
    return upper ? s.toUpperCase() : s;
  }
  const s = shortest ? String(f) : Number(f.toPrecision(digits)).toString();
  return s;
}

function formatInt(a: bigint, verb: string, spec: Spec): string {
  const neg = a < 0n;
  const abs = neg ? -a : a;
  let body: string;
  switch (verb) {
    case "d": case "v": body = abs.toString(); break;
    case "x": body = abs.toString(16); if (spec.sharp) body = "0x" + body; break;
    case "X": body = abs.toString(16).toUpperCase(); if (spec.sharp) body = "0X" + body; break;
    case "o": body = abs.toString(8); if (spec.sharp) body = "0" + body; break;
    case "b": body = abs.toString(2); break;
    case "c": return String.fromCodePoint(Number(a));
    case "q": return JSON.stringify(String.fromCodePoint(Number(a))).replace(/^"|"$/g, "'");
    default: return "";
  }
  if (spec.prec !== null) body = body.padStart(spec.prec, "0");
  return pad(signed(body, neg, spec), spec, spec.prec === null);
}

/** x = m / 2^k exactly (doubling a double is exact). */
function dyadic(x: number): [bigint, bigint] {
  let k = 0n;
  while (!Number.isInteger(x)) { x *= 2; k++; }
  return [BigInt(x), k];
}

/** Go's %f of a non-negative finite double: correctly rounded, ties to even (JS toFixed rounds ties up). */
function fixed(a: number, prec: number): string {
  if (!Number.isFinite(a)) return Number.isNaN(a) ? "NaN" : "+Inf";
  const [m, k] = dyadic(a);
  const twice = m * 10n ** BigInt(prec) * 2n;
  const den = 1n << k;
  let n: bigint;
  if (twice % den === 0n && (twice / den) % 2n === 1n) {
    const low = (twice / den - 1n) / 2n;
    n = low % 2n === 0n ? low : low + 1n;
  } else {
    n = (twice + den) / (2n * den);
  }
  const digits = n.toString().padStart(prec + 1, "0");
  return prec === 0 ? digits : `${digits.slice(0, -prec)}.${digits.slice(-prec)}`;
}

function formatFloat(f: number, verb: string, spec: Spec): string {
  const neg = f < 0 || Object.is(f, -0);
  const a = Math.abs(f);
  let body: string;
  switch (verb) {
    case "f": case "F": body = fixed(a, spec.prec ?? 6); break;
    case "e": case "E": body = eFloat(a, spec.prec ?? 6, verb === "E"); break;
    case "g": case "G": case "v": body = gFloat(a, spec.prec ?? -1, verb === "G"); break;
    default: return "";
  }
  return pad(signed(body, neg, spec), spec, true);
}

function formatString(s: string, verb: string, spec: Spec): string {
  let body: string;
  switch (verb) {
    case "s": case "v": body = spec.prec === null ? s : [...s].slice(0, spec.prec).join(""); break;
    case "q": body = JSON.stringify(s); break;
    case "x": body = Buffer.from(s, "utf8").toString("hex"); break;
    case "X": body = Buffer.from(s, "utf8").toString("hex").toUpperCase(); break;
    default: return "";
  }
  return pad(body, spec, false);
}

function formatOne(a: Arg, verb: string, spec: Spec): string {
  let out = "";
  if (a.kind === "int") {
    // big.Int also formats with %s; a Go int does not.
    out = verb === "s" && a.big ? pad(a.v.toString(), spec, false) : formatInt(a.v, verb, spec);
  } else if (a.kind === "float") out = formatFloat(a.v, verb, spec);
  else out = formatString(a.v, verb, spec);
  return out === "" ? `%!${verb}(${typeOf(a)}=${plain(a)})` : out;
}

export function goSprintf(format: string, values: readonly unknown[]): string {
  const args = values.map(toArg);
  let argi = 0;
  let out = "";
  let i = 0;
  while (i < format.length) {
    const c = format[i]!;
    if (c !== "%") { out += c; i++; continue; }
    i++;
    const spec: Spec = { minus: false, plus: false, space: false, zero: false, sharp: false, width: null, prec: null };
    for (;; i++) {
      const f = format[i];
      if (f === "-") spec.minus = true;
      else if (f === "+") spec.plus = true;
      else if (f === " ") spec.space = true;
      else if (f === "0") spec.zero = true;
      else if (f === "#") spec.sharp = true;
      else break;
    }
    const w = /^\d+/.exec(format.slice(i));
    if (w !== null) { spec.width = Number(w[0]); i += w[0].length; }
    if (format[i] === ".") {
      i++;
      const p = /^\d+/.exec(format.slice(i));
      spec.prec = p === null ? 0 : Number(p[0]);
      if (p !== null) i += p[0].length;
    }
    const verb = format[i];
    if (verb === undefined) { out += "%!(NOVERB)"; break; }
    i++;
    if (verb === "%") { out += "%"; continue; }
    if (argi >= args.length) { out += `%!${verb}(MISSING)`; continue; }
    out += formatOne(args[argi++]!, verb, spec);
  }
  if (argi < args.length) {
    out += `%!(EXTRA ${args.slice(argi).map((a) => `${typeOf(a)}=${plain(a)}`).join(", ")})`;
  }
  return out;
}

export function sprintf(format: unknown, values: unknown): string {
  if (typeof format !== "string") throw operandTypeError(1, format, "string");
  if (!Array.isArray(values)) throw operandTypeError(2, values, "array");
  return goSprintf(format, values);
}

export const sprintfBuiltins = { sprintf };
