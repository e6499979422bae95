/**
 * Go's `time.Parse` and `Time.Format` for the layouts of go-layout.ts, over a
 * civil time plus a UTC offset. Instants are bigint nanoseconds since the epoch so
 * that the full int64 range OPA allows (1677..2262) is exact.
 */
import { LONG_DAYS, LONG_MONTHS, splitLayout } from "./go-layout.js";
import type { Std } from "./go-layout.js";
import { builtinError } from "./errors.js";
import { goTimeQuote } from "./go-quote.js";

export interface Civil {
  year: number; month: number; day: number; hour: number; minute: number; second: number;
  nsec: number;
  /** Seconds east of UTC. */
  offset: number;
  /** Zone abbreviation for "MST" (format only). */
  abbrev?: string;
}

export class TimeParseError extends Error {
  override name = "TimeParseError";
}

const NS = 1_000_000_000n;

export function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** Seconds since the epoch of a civil UTC date (normalising overflowing fields, as Go's time.Date). */
export function utcSeconds(y: number, mo: number, d: number, h: number, mi: number, s: number): bigint {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  const ms = date.getTime();
  // Beyond JavaScript's date range is far beyond the int64 nanoseconds OPA allows.
  if (!Number.isFinite(ms)) throw builtinError("time outside of valid range");
  return BigInt(Math.round(ms / 1000));
}

export function civilToNs(c: Civil): bigint {
  return (utcSeconds(c.year, c.month, c.day, c.hour, c.minute, c.second) - BigInt(c.offset)) * NS + BigInt(c.nsec);
}

const pad = (n: number, w: number): string => String(Math.abs(n)).padStart(w, "0");

function parseErr(value: string, layout: string, rest: string, elem: string): never {
  throw new TimeParseError(`parsing time ${goTimeQuote(value)} as ${goTimeQuote(layout)}: cannot parse ${goTimeQuote(rest)} as ${goTimeQuote(elem)}`);
}
function rangeErr(value: string, what: string): never {
  throw new TimeParseError(`parsing time ${goTimeQuote(value)}: ${what} out of range`);
}

/** Leading digits: exactly `fixed` of them, or 1..2 when fixed is 0. */
function num(s: string, fixed: number): [number, string] | null {
  const m = (fixed > 0 ? new RegExp(`^\\d{${fixed}}`) : /^\d{1,2}/).exec(s);
  return m === null ? null : [Number(m[0]), s.slice(m[0].length)];
}

function lookupName(names: readonly string[], s: string, len: number | null): [number, string] | null {
  for (let i = 0; i < names.length; i++) {
    const n = len === null ? names[i]! : names[i]!.slice(0, len);
    if (s.slice(0, n.length).toLowerCase() === n.toLowerCase()) return [i, s.slice(n.length)];
  }
  return null;
}

export function goParse(layout: string, value: string): Civil {
  const c: Civil = { year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0, nsec: 0, offset: 0 };
  let rest = value;
  let pm: boolean | null = null;
  const chunks = splitLayout(layout);
  for (let k = 0; k < chunks.length; k++) {
    const ch = chunks[k]!;
    if ("lit" in ch) {
      if (!rest.startsWith(ch.lit)) parseErr(value, layout, rest, ch.lit);
      rest = rest.slice(ch.lit.length);
      continue;
    }
    const std: Std = ch.std;
    const before = rest;
    const bad = (): never => parseErr(value, layout, before, ch.text);
    let r: [number, string] | null;
    switch (std) {
      case "LongYear":
        r = num(rest, 4) ?? bad(); c.year = r[0]; rest = r[1]; break;
      case "Year":
        r = num(rest, 2) ?? bad(); c.year = r[0] >= 69 ? 1900 + r[0] : 2000 + r[0]; rest = r[1]; break;
      case "Month": case "LongMonth":
        r = lookupName(LONG_MONTHS, rest, std === "Month" ? 3 : null) ?? bad(); c.month = r[0] + 1; rest = r[1]; break;
      case "WeekDay": case "LongWeekDay":
        r = lookupName(LONG_DAYS, rest, std === "WeekDay" ? 3 : null) ?? bad(); rest = r[1]; break;
      case "NumMonth": case "ZeroMonth":
        r = num(rest, std === "ZeroMonth" ? 2 : 0) ?? bad();
        if (r[0] < 1 || r[0] > 12) rangeErr(value, "month");
        c.month = r[0]; rest = r[1]; break;
      case "Day": case "UnderDay": case "ZeroDay":
        if (std === "UnderDay" && rest.startsWith(" ")) rest = rest.slice(1);
        r = num(rest, std === "ZeroDay" ? 2 : 0) ?? bad(); c.day = r[0]; rest = r[1]; break;
      case "Hour":
        r = num(rest, 0) ?? bad(); if (r[0] > 23) rangeErr(value, "hour"); c.hour = r[0]; rest = r[1]; break;
      case "Hour12": case "ZeroHour12":
        r = num(rest, std === "ZeroHour12" ? 2 : 0) ?? bad(); if (r[0] > 12) rangeErr(value, "hour"); c.hour = r[0]; rest = r[1]; break;
      case "Minute": case "ZeroMinute":
        r = num(rest, std === "ZeroMinute" ? 2 : 0) ?? bad(); if (r[0] > 59) rangeErr(value, "minute"); c.minute = r[0]; rest = r[1]; break;
      case "Second": case "ZeroSecond": {
        r = num(rest, std === "ZeroSecond" ? 2 : 0) ?? bad(); if (r[0] > 59) rangeErr(value, "second"); c.second = r[0]; rest = r[1];
        // Go accepts fractional seconds after seconds even when the layout has none.
        const next = chunks[k + 1];
        const fracNext = next !== undefined && "std" in next && (next.std === "Frac0" || next.std === "Frac9");
        const m = /^[.,](\d+)/.exec(rest);
        if (!fracNext && m !== null) { c.nsec = fracNs(m[1]!); rest = rest.slice(m[0].length); }
        break;
      }
      case "Frac0": {
        const d = ch.digits ?? 0;
        const m = new RegExp(`^[.,](\\d{${d}})`).exec(rest) ?? bad();
        c.nsec = fracNs(m[1]!); rest = rest.slice(m[0].length); break;
      }
      case "Frac9": {
        const m = /^[.,](\d+)/.exec(rest);
        if (m !== null) { c.nsec = fracNs(m[1]!); rest = rest.slice(m[0].length); }
        break;
      }
      case "PM": case "pm": {
        const s = rest.slice(0, 2);
        const want = std === "PM" ? ["AM", "PM"] : ["am", "pm"];
        if (s === want[1]) pm = true; else if (s === want[0]) pm = false; else bad();
        rest = rest.slice(2); break;
      }
      case "TZ": {
        if (rest.startsWith("UTC")) { rest = rest.slice(3); break; }
        const m = /^[A-Z]{3,5}/.exec(rest) ?? bad();
        rest = rest.slice(m[0].length); break;
      }
      default: {
        // Numeric zones; the ISO8601 forms accept "Z" for UTC.
        if (std.startsWith("ISO8601") && rest.startsWith("Z")) { rest = rest.slice(1); c.offset = 0; break; }
        const colon = std.includes("Colon");
        const secs = std.includes("Seconds");
        const short = std.includes("Short");
        const re = short ? /^([+-])(\d\d)/ : colon ? (secs ? /^([+-])(\d\d):(\d\d):(\d\d)/ : /^([+-])(\d\d):(\d\d)/) : secs ? /^([+-])(\d\d)(\d\d)(\d\d)/ : /^([+-])(\d\d)(\d\d)/;
        const m = re.exec(rest) ?? bad();
        const off = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
        c.offset = m[1] === "-" ? -off : off;
        rest = rest.slice(m[0].length);
      }
    }
  }
  if (rest !== "") throw new TimeParseError(`parsing time ${goTimeQuote(value)}: extra text: ${goTimeQuote(rest)}`);
  if (pm === true && c.hour < 12) c.hour += 12;
  else if (pm === false && c.hour === 12) c.hour = 0;
  if (c.day < 1 || c.day > daysIn(c.month, c.year)) rangeErr(value, "day");
  return c;
}

function fracNs(digits: string): number {
  return Number((digits + "000000000").slice(0, 9));
}

function zoneText(offset: number, colon: boolean, seconds: boolean, short: boolean): string {
  const sign = offset < 0 ? "-" : "+";
  const a = Math.abs(offset);
  const h = pad(Math.floor(a / 3600), 2);
  const m = pad(Math.floor((a % 3600) / 60), 2);
  const s = pad(a % 60, 2);
  if (short) return sign + h;
  if (colon) return sign + h + ":" + m + (seconds ? ":" + s : "");
  return sign + h + m + (seconds ? s : "");
}

export function goFormat(layout: string, c: Civil, weekday: number, yearDay: number): string {
  let out = "";
  for (const ch of splitLayout(layout)) {
    if ("lit" in ch) { out += ch.lit; continue; }
    const std = ch.std;
    switch (std) {
      case "LongYear": out += (c.year < 0 ? "-" : "") + pad(c.year, 4); break;
      case "Year": out += pad(((c.year % 100) + 100) % 100, 2); break;
      case "Month": out += LONG_MONTHS[c.month - 1]!.slice(0, 3); break;
      case "LongMonth": out += LONG_MONTHS[c.month - 1]!; break;
      case "NumMonth": out += String(c.month); break;
      case "ZeroMonth": out += pad(c.month, 2); break;
      case "WeekDay": out += LONG_DAYS[weekday]!.slice(0, 3); break;
      case "LongWeekDay": out += LONG_DAYS[weekday]!; break;
      case "Day": out += String(c.day); break;
      case "UnderDay": out += c.day < 10 ? " " + c.day : String(c.day); break;
      case "ZeroDay": out += pad(c.day, 2); break;
      case "UnderYearDay": out += String(yearDay).padStart(3, " "); break;
      case "ZeroYearDay": out += pad(yearDay, 3); break;
      case "Hour": out += pad(c.hour, 2); break;
      case "Hour12": out += String(c.hour % 12 === 0 ? 12 : c.hour % 12); break;
      case "ZeroHour12": out += pad(c.hour % 12 === 0 ? 12 : c.hour % 12, 2); break;
      case "Minute": out += String(c.minute); break;
      case "ZeroMinute": out += pad(c.minute, 2); break;
      case "Second": out += String(c.second); break;
      case "ZeroSecond": out += pad(c.second, 2); break;
      case "PM": out += c.hour >= 12 ? "PM" : "AM"; break;
      case "pm": out += c.hour >= 12 ? "pm" : "am"; break;
      case "TZ": out += c.abbrev ?? (c.offset === 0 ? "UTC" : zoneText(c.offset, false, false, false)); break;
      case "Frac0": out += (ch.sep ?? ".") + pad(c.nsec, 9).slice(0, ch.digits ?? 0); break;
      case "Frac9": {
        const digits = pad(c.nsec, 9).slice(0, ch.digits ?? 0).replace(/0+$/, "");
        if (digits !== "") out += (ch.sep ?? ".") + digits;
        break;
      }
      default: {
        if (std.startsWith("ISO8601") && c.offset === 0) { out += "Z"; break; }
        out += zoneText(c.offset, std.includes("Colon"), std.includes("Seconds"), std.includes("Short"));
      }
    }
  }
  return out;
}
