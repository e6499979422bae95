/**
 * Go's reference-time layouts ("2006-01-02T15:04:05Z07:00"), split into chunks the
 * way Go's time/format.go `nextStdChunk` does, for parsing and formatting.
 */

export type Std =
  | "LongMonth" | "Month" | "NumMonth" | "ZeroMonth"
  | "LongWeekDay" | "WeekDay"
  | "Day" | "UnderDay" | "ZeroDay" | "UnderYearDay" | "ZeroYearDay"
  | "Hour" | "Hour12" | "ZeroHour12" | "Minute" | "ZeroMinute" | "Second" | "ZeroSecond"
  | "LongYear" | "Year" | "PM" | "pm" | "TZ"
  | "ISO8601TZ" | "ISO8601SecondsTZ" | "ISO8601ShortTZ" | "ISO8601ColonTZ" | "ISO8601ColonSecondsTZ"
  | "NumTZ" | "NumSecondsTz" | "NumShortTZ" | "NumColonTZ" | "NumColonSecondsTZ"
  | "Frac0" | "Frac9";

/** `text` is the chunk as written in the layout (Go names it in parse errors). */
export type Chunk = { readonly lit: string } | { readonly std: Std; readonly text: string; readonly digits?: number; readonly sep?: string };

/** Layout names OPA accepts in place of a layout (time.parse_ns, time.format). */
export const NAMED_LAYOUTS: Readonly<Record<string, string>> = {
  ANSIC: "Mon Jan _2 15:04:05 2006",
  UnixDate: "Mon Jan _2 15:04:05 MST 2006",
  RubyDate: "Mon Jan 02 15:04:05 -0700 2006",
  RFC822: "02 Jan 06 15:04 MST",
  RFC822Z: "02 Jan 06 15:04 -0700",
  RFC850: "Monday, 02-Jan-06 15:04:05 MST",
  RFC1123: "Mon, 02 Jan 2006 15:04:05 MST",
  RFC1123Z: "Mon, 02 Jan 2006 15:04:05 -0700",
  RFC3339: "2006-01-02T15:04:05Z07:00",
  RFC3339Nano: "2006-01-02T15:04:05.999999999Z07:00",
};

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/** Longest-first prefixes per leading character, as in Go. */
const PREFIXES: readonly (readonly [string, Std])[] = [
  ["January", "LongMonth"], ["Jan", "Month"], ["Monday", "LongWeekDay"], ["Mon", "WeekDay"], ["MST", "TZ"],
  ["002", "ZeroYearDay"], ["01", "ZeroMonth"], ["02", "ZeroDay"], ["03", "ZeroHour12"], ["04", "ZeroMinute"],
  ["05", "ZeroSecond"], ["06", "Year"], ["15", "Hour"], ["1", "NumMonth"], ["2006", "LongYear"], ["2", "Day"],
  ["__2", "UnderYearDay"], ["_2", "UnderDay"], ["3", "Hour12"], ["4", "Minute"], ["5", "Second"],
  ["PM", "PM"], ["pm", "pm"],
  ["-07:00:00", "NumColonSecondsTZ"], ["-070000", "NumSecondsTz"], ["-07:00", "NumColonTZ"], ["-0700", "NumTZ"], ["-07", "NumShortTZ"],
  ["Z07:00:00", "ISO8601ColonSecondsTZ"], ["Z070000", "ISO8601SecondsTZ"], ["Z07:00", "ISO8601ColonTZ"], ["Z0700", "ISO8601TZ"], ["Z07", "ISO8601ShortTZ"],
];

const layoutCache = new Map<string, Chunk[]>();

export function splitLayout(layout: string): Chunk[] {
  const hit = layoutCache.get(layout);
  if (hit !== undefined) return hit;
  const chunks: Chunk[] = [];
  let litStart = 0;
  let i = 0;
  const flush = (end: number): void => {
    if (end > litStart) chunks.push({ lit: layout.slice(litStart, end) });
  };
  outer: while (i < layout.length) {
    const c = layout[i]!;
    // Fractional seconds: ".000" / ".999" (or ','), not followed by a digit.
    if ((c === "." || c === ",") && (layout[i + 1] === "0" || layout[i + 1] === "9")) {
      const d = layout[i + 1]!;
      let j = i + 1;
      while (layout[j] === d) j++;
      if (!isDigit(layout[j])) {
        flush(i);
        chunks.push({ std: d === "0" ? "Frac0" : "Frac9", text: layout.slice(i, j), digits: j - i - 1, sep: c });
        i = j;
        litStart = i;
        continue;
      }
    }
    for (const [p, std] of PREFIXES) {
      if (!layout.startsWith(p, i)) continue;
      // Go's special cases: "Jan"/"Mon" need a non-lowercase next letter, "2006"
      // only as a whole, "_2006" is "_" + year.
      if ((std === "Month" || std === "WeekDay") && /[a-z]/.test(layout[i + p.length] ?? "")) continue;
      if (std === "UnderDay" && layout.startsWith("_2006", i)) continue;
      flush(i);
      chunks.push({ std, text: p });
      i += p.length;
      litStart = i;
      continue outer;
    }
    i++;
  }
  flush(layout.length);
  layoutCache.set(layout, chunks);
  return chunks;
}

export const LONG_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
export const LONG_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
