/**
 * units.parse and units.parse_bytes as OPA computes them (exact rational
 * arithmetic; parse_bytes truncates to an integer). Exact decimals are kept as
 * bigint numerator / power-of-ten denominator; results beyond 2^53 go back as JSON text.
 */
import { builtinError } from "./errors.js";
import { exactInt, jsonText, type HostNumber } from "./exact.js";
import { stringOperand } from "./operands.js";

const MAX_EXP_DIGITS = 6;

/** OPA's extractNumAndUnit: the numeric prefix (digits, '.', exponent) and the rest. */
function splitNumUnit(s: string, fn: string): [string, string] {
  let first = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const isNum = (c >= "0" && c <= "9") || c === ".";
    if (!isNum && c !== "e" && c !== "E" && c !== "+" && c !== "-") { first = i; break; }
    if (c === "e" || c === "E") {
      const n = s[i + 1];
      if (n === undefined || (!(n >= "0" && n <= "9") && n !== "+" && n !== "-")) { first = i; break; }
      if (n === "+" || n === "-") i++;
      let end = i + 1;
      while (end < s.length && s[end]! >= "0" && s[end]! <= "9") end++;
      if (end - (i + 1) > MAX_EXP_DIGITS) throw builtinError(`${fn}: exponent too large`);
    }
  }
  if (first === -1) return [s, ""];
  if (first === 0) return ["", s];
  return [s.slice(0, first), s.slice(first)];
}

/** A decimal literal as num / 10^scale (Go's big.Rat/big.Float SetString for plain decimals). */
function decimal(text: string): { num: bigint; scale: number } | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null || (m[2] === "" && (m[3] ?? "") === "")) return null;
  const frac = m[3] ?? "";
  let num = BigInt((m[2] || "0") + frac);
  let scale = frac.length - Number(m[4] ?? 0);
  if (scale < 0) { num *= 10n ** BigInt(-scale); scale = 0; }
  return { num: m[1] === "-" ? -num : num, scale };
}

const K = 1000n;
const DECIMAL: Record<string, bigint> = { "": 1n, k: K, m: K ** 2n, g: K ** 3n, t: K ** 4n, p: K ** 5n, e: K ** 6n };
const BINARY: Record<string, bigint> = { ki: 1n << 10n, mi: 1n << 20n, gi: 1n << 30n, ti: 1n << 40n, pi: 1n << 50n, ei: 1n << 60n };

export function parseBytes(v: unknown): HostNumber {
  const s = stringOperand(v, 1).toLowerCase().replaceAll('"', "");
  const fn = "units.parse_bytes";
  if (s.includes(" ")) throw builtinError(`${fn}: spaces not allowed in resource strings`);
  const [numText, unit] = splitNumUnit(s, fn);
  if (numText === "") throw builtinError(`${fn}: no byte amount provided`);
  const u = unit.endsWith("b") && unit.length === 2 ? unit.slice(0, 1) : unit.endsWith("ib") ? unit.slice(0, -1) : unit;
  const mult = unit === "b" ? undefined : (DECIMAL[u] ?? BINARY[u]);
  if (mult === undefined) throw builtinError(`${fn}: byte unit ${unit} not recognized`);
  const d = decimal(numText);
  if (d === null) throw builtinError(`${fn}: could not parse byte amount to a number`);
  // Truncation toward zero, as big.Float.Int does.
  return exactInt((d.num * mult) / 10n ** BigInt(d.scale));
}

export function parseUnits(v: unknown): HostNumber {
  const s = stringOperand(v, 1).replaceAll('"', "");
  const fn = "units.parse";
  if (s.includes(" ")) throw builtinError(`${fn}: spaces not allowed in resource strings`);
  const [numText, rawUnit] = splitNumUnit(s, fn);
  if (numText === "") throw builtinError(`${fn}: no amount provided`);
  // Only the first letter keeps its case, so that 'm' (milli) and 'M' (mega) differ.
  const unit = rawUnit.length > 1 ? rawUnit[0] + rawUnit.slice(1).toLowerCase() : rawUnit;
  let num: bigint;
  let den = 1n;
  if (unit === "m") { num = 1n; den = 1000n; }
  else if (unit === "M") num = DECIMAL.m!;
  else {
    const lower = unit.toLowerCase();
    const m = DECIMAL[lower] ?? BINARY[lower];
    if (m === undefined) throw builtinError(`${fn}: unit ${unit} not recognized`);
    num = m;
  }
  const d = decimal(numText);
  if (d === null) throw builtinError(`${fn}: could not parse amount to a number`);
  num *= d.num;
  den *= 10n ** BigInt(d.scale);
  if (num % den === 0n) return exactInt(num / den);
  // Go's Rat.FloatString(10): ten decimals, rounded half away from zero.
  const neg = num < 0n;
  const a = neg ? -num : num;
  const scaled = (a * 10n ** 10n * 2n + den) / (2n * den);
  const str = scaled.toString().padStart(11, "0");
  return jsonText(`${neg ? "-" : ""}${str.slice(0, -10)}.${str.slice(-10)}`);
}

export const unitsBuiltins = {
  "units.parse_bytes": parseBytes,
  "units.parse": parseUnits,
};
