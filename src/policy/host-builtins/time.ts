/**
 * OPA's time builtins. Instants are int64 nanoseconds (bigint here); results beyond
 * 2^53 go back to the module as exact JSON text (exact.ts). The builtins that read an
 * instant (format, date, clock, weekday, add_date, diff) are on the exact protocol:
 * their operands arrive as tagged JSON text with every digit (exact-value.ts), so
 * nanoseconds beyond 2^53 are kept; called with plain JSON values (a module built
 * before) they read numbers as doubles.
 * Zones: "" and "UTC" are UTC, "Local" is the process zone, others IANA names via Intl.
 */
import { builtinError, operandTypeError } from "./errors.js";
import { exactInt, jsonText, type HostNumber } from "./exact.js";
import { parseExact, RegoNumber, RegoObject, RegoSet, type Value } from "./exact-value.js";
import { NAMED_LAYOUTS } from "./go-layout.js";
import { goTimeQuote } from "./go-quote.js";
import { civilToNs, daysIn, goFormat, goParse, TimeParseError, utcSeconds, type Civil } from "./go-time.js";
import { goIntOperand, stringOperand } from "./operands.js";

const NS = 1_000_000_000n;
const MIN_NS = -(2n ** 63n);
const MAX_NS = 2n ** 63n - 1n;
const TS_TYPE = "either number (ns) or [number (ns), string (tz)]";

/** time.now_ns: the module caches it per evaluation (see codegen/plan/NOTE-host-builtins.md). */
export function nowNs(): HostNumber {
  const ms = performance.timeOrigin + performance.now();
  return exactInt(BigInt(Math.floor(ms)) * 1_000_000n + BigInt(Math.floor((ms % 1) * 1e6)));
}

function safe(ns: bigint): HostNumber {
  if (ns < MIN_NS || ns > MAX_NS) throw builtinError("time outside of valid range");
  return exactInt(ns);
}

function parsed(layout: string, value: string): HostNumber {
  let c: Civil;
  try {
    c = goParse(layout, value);
  } catch (e) {
    if (e instanceof TimeParseError) throw builtinError(e.message);
    throw e;
  }
  return safe(civilToNs(c));
}

export function parseRfc3339Ns(value: unknown): HostNumber {
  return parsed(NAMED_LAYOUTS.RFC3339!, stringOperand(value, 1));
}

export function parseNs(layout: unknown, value: unknown): HostNumber {
  const l = stringOperand(layout, 1);
  const v = stringOperand(value, 2);
  return parsed(NAMED_LAYOUTS[l] ?? l, v);
}

const UNITS: Record<string, bigint> = { ns: 1n, us: 1000n, "µs": 1000n, "μs": 1000n, ms: 1_000_000n, s: NS, m: 60n * NS, h: 3600n * NS };

/** Go's time.ParseDuration. */
export function parseDurationNs(value: unknown): HostNumber {
  const orig = stringOperand(value, 1);
  const invalid = (): never => { throw builtinError(`time: invalid duration ${goTimeQuote(orig)}`); };
  let s = orig;
  let neg = false;
  if (s.startsWith("-") || s.startsWith("+")) { neg = s[0] === "-"; s = s.slice(1); }
  if (s === "0") return 0;
  if (s === "") invalid();
  let total = 0n;
  while (s !== "") {
    const m = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const [, whole = "", frac] = m;
    if (whole === "" && (frac ?? "") === "") invalid();
    s = s.slice(m[0].length);
    const unit = /^[^\d.]*/.exec(s)![0];
    if (unit === "") throw builtinError(`time: missing unit in duration ${goTimeQuote(orig)}`);
    const scale = UNITS[unit];
    if (scale === undefined) throw builtinError(`time: unknown unit ${goTimeQuote(unit)} in duration ${goTimeQuote(orig)}`);
    let v = BigInt(whole === "" ? "0" : whole) * scale;
    if (frac !== undefined && frac !== "") v += (BigInt(frac) * scale) / 10n ** BigInt(frac.length);
    total += v;
    s = s.slice(unit.length);
  }
  if (total > MAX_NS + (neg ? 1n : 0n)) invalid();
  return exactInt(neg ? -total : total);
}

/**
 * OPA's test.sleep: blocks the evaluation for a Go duration (`"10ms"`), but never more than
 * `capMs`: an engine passes the time left to its deadline (plus a millisecond, so the meter
 * sees the deadline passed when the call returns and stops the evaluation).
 */
export function testSleep(value: unknown, capMs = Infinity): null {
  const ns = parseDurationNs(value);
  const ms = Math.min(Number(typeof ns === "number" ? ns : BigInt(new TextDecoder().decode(ns))) / 1e6, capMs);
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return null;
}

interface Zoned { readonly ns: bigint; readonly tz: string; readonly layout: string }

/** OPA's tzTime: a number, or [ns, tz?, layout?]. */
function zoned(a: unknown): Zoned {
  let n: unknown = a;
  let tz = "UTC";
  let layout = "";
  if (Array.isArray(a)) {
    if (a.length === 0) throw operandTypeError(1, a, TS_TYPE);
    n = a[0];
    if (typeof n !== "number" && typeof n !== "bigint") throw operandTypeError(1, n, "number");
    if (a.length > 1) tz = stringOperand(a[1], 1) || "UTC";
    if (a.length > 2) layout = stringOperand(a[2], 1);
  } else if (typeof a !== "number" && typeof a !== "bigint") throw operandTypeError(1, a, TS_TYPE);
  if (typeof n === "bigint") {
    if (n < MIN_NS || n > MAX_NS) throw builtinError("timestamp too big");
    return { ns: n, tz, layout };
  }
  const num = n as number;
  // OPA reads the instant with big.Float.Int64: a fraction is inexact, hence "too big" as well.
  if (!Number.isInteger(num) || Math.abs(num) > 2 ** 63) throw builtinError("timestamp too big");
  return { ns: BigInt(Math.trunc(num)), tz, layout };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone: tz === "Local" ? undefined : tz, hourCycle: "h23", timeZoneName: "short",
        year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric",
      } as Intl.DateTimeFormatOptions);
    } catch {
      throw builtinError(`unknown time zone ${tz}`);
    }
    formatters.set(tz, f);
  }
  return f;
}

/** Civil time of an instant in a zone, with weekday (0 = Sunday) and day of year. */
export function civilAt(ns: bigint, tz: string): { civil: Civil; weekday: number; yearDay: number } {
  const sec = ns >= 0n ? ns / NS : -((-ns + NS - 1n) / NS);
  const nsec = Number(ns - sec * NS);
  const ms = Number(sec) * 1000;
  let civil: Civil;
  if (tz === "UTC") {
    const d = new Date(ms);
    civil = { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), nsec, offset: 0, abbrev: "UTC" };
  } else {
    const parts: Record<string, string> = {};
    for (const p of formatter(tz).formatToParts(new Date(ms))) parts[p.type] = p.value;
    const year = Number(parts.year) * (parts.era === "BC" ? -1 : 1);
    civil = { year, month: Number(parts.month), day: Number(parts.day), hour: Number(parts.hour), minute: Number(parts.minute), second: Number(parts.second), nsec, offset: 0 };
    civil.offset = Number(utcSeconds(civil.year, civil.month, civil.day, civil.hour, civil.minute, civil.second) - sec);
    const name = parts.timeZoneName ?? "";
    civil.abbrev = /^[A-Z]{3,5}$/.test(name) ? name : undefined!;
    if (civil.abbrev === undefined) delete civil.abbrev;
  }
  const dayStart = utcSeconds(civil.year, civil.month, civil.day, 0, 0, 0);
  const weekday = Number((((dayStart / 86400n) % 7n) + 11n) % 7n); // 1970-01-01 was a Thursday (4)
  const yearDay = Number((dayStart - utcSeconds(civil.year, 1, 1, 0, 0, 0)) / 86400n) + 1;
  return { civil, weekday, yearDay };
}

export function timeDate(x: unknown): number[] {
  const z = zoned(x);
  const { civil } = civilAt(z.ns, z.tz);
  return [civil.year, civil.month, civil.day];
}

export function timeClock(x: unknown): number[] {
  const z = zoned(x);
  const { civil } = civilAt(z.ns, z.tz);
  return [civil.hour, civil.minute, civil.second];
}

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export function timeWeekday(x: unknown): string {
  const z = zoned(x);
  return DAYS[civilAt(z.ns, z.tz).weekday]!;
}

export function timeFormat(x: unknown): string {
  const z = zoned(x);
  const layout = z.layout === "" ? NAMED_LAYOUTS.RFC3339Nano! : (NAMED_LAYOUTS[z.layout] ?? z.layout);
  const { civil, weekday, yearDay } = civilAt(z.ns, z.tz);
  return goFormat(layout, civil, weekday, yearDay);
}

/** Go's Time.AddDate in the instant's zone (fields overflow and normalise). */
export function timeAddDate(x: unknown, years: unknown, months: unknown, days: unknown): HostNumber {
  const z = zoned(x);
  const num = (v: unknown): unknown => (typeof v === "bigint" ? Number(v) : v);
  const y = goIntOperand(num(years), 2);
  const mo = goIntOperand(num(months), 3);
  const d = goIntOperand(num(days), 4);
  const { civil: c } = civilAt(z.ns, z.tz);
  const secs = utcSeconds(c.year + y, c.month + mo, c.day + d, c.hour, c.minute, c.second) - BigInt(c.offset);
  return safe(secs * NS + BigInt(c.nsec));
}

/** OPA's time.diff (icza/gox): [years, months, days, hours, minutes, seconds]. */
export function timeDiff(a: unknown, b: unknown): number[] {
  const za = zoned(a);
  const zb = zoned(b);
  let [n1, n2] = [za.ns, zb.ns];
  if (n1 > n2) [n1, n2] = [n2, n1];
  const t1 = civilAt(n1, za.tz).civil;
  const t2 = civilAt(n2, za.tz).civil; // t2 is read in t1's zone, as OPA does
  let year = t2.year - t1.year;
  let month = t2.month - t1.month;
  let day = t2.day - t1.day;
  let hour = t2.hour - t1.hour;
  let min = t2.minute - t1.minute;
  let sec = t2.second - t1.second;
  if (sec < 0) { sec += 60; min--; }
  if (min < 0) { min += 60; hour--; }
  if (hour < 0) { hour += 24; day--; }
  if (day < 0) { day += daysIn(t1.month, t1.year); month--; }
  if (month < 0) { month += 12; year--; }
  return [year, month, day, hour, min, sec];
}

/** An exact operand as the plain form the builtins read: integers as bigint, other numbers as doubles. */
function plain(v: Value): unknown {
  if (v instanceof RegoNumber) return v.isInt ? BigInt(v.text) : Number(v.text);
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof RegoSet) return new Set(v.items.map(plain));
  if (v instanceof RegoObject) return Object.fromEntries(v.entries.map(([k, x]) => [typeof k === "string" ? k : JSON.stringify(k), plain(x)]));
  return v;
}

/** A result as exact text: strings, numbers (an ArrayBuffer is exact integer text already) and arrays of them. */
function exactText(r: unknown): string {
  if (r instanceof ArrayBuffer) return new TextDecoder().decode(r);
  if (Array.isArray(r)) return `[${r.map(exactText).join(",")}]`;
  return JSON.stringify(r);
}

/**
 * A builtin reading an instant, on either protocol: a module on the exact protocol
 * sends every operand as tagged JSON text (an instant operand is never a string
 * otherwise) and reads the result back as text.
 */
function instantBuiltin<A extends unknown[]>(fn: (...args: A) => unknown): (...args: unknown[]) => unknown {
  const call = (...args: unknown[]): unknown => {
    if (typeof args[0] !== "string") return fn(...(args as A));
    let operands: unknown[];
    try {
      operands = args.map((a) => plain(parseExact(a as string)));
    } catch {
      return fn(...(args as A));
    }
    return jsonText(exactText(fn(...(operands as A))));
  };
  // The host set tells the load-time probe (no arguments) from a call by the arity.
  return Object.defineProperty(call, "length", { value: fn.length });
}

export const timeBuiltins = {
  "time.now_ns": nowNs,
  "time.parse_rfc3339_ns": parseRfc3339Ns,
  "time.parse_ns": parseNs,
  "time.parse_duration_ns": parseDurationNs,
  "time.format": instantBuiltin(timeFormat),
  "time.date": instantBuiltin(timeDate),
  "time.clock": instantBuiltin(timeClock),
  "time.weekday": instantBuiltin(timeWeekday),
  "time.add_date": instantBuiltin(timeAddDate),
  "time.diff": instantBuiltin(timeDiff),
  "test.sleep": testSleep,
};
