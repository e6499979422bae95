/**
 * The expected values and errors of OPA's conformance cases for the host builtins
 * (../shared/conformance/opa-v1/{time,units,netcidrcontains,regexmatch,sprintf}),
 * applied to the functions directly, by case note. Cases that need other parts
 * (time caching needs test.sleep) are not here.
 */
import { describe, expect, it } from "vitest";
import { call, type Row } from "./helpers.js";

const L = "2006-01-02T15:04:05Z07:00";
const ns = (s: number): number => s * 1e9;

const rows: Row[] = [
  { note: "time/parse_nanos 1", fn: "time.parse_ns", args: [L, "2017-06-02T19:00:00-07:00"], want: 1496455200000000000n },
  { note: "time/parse_nanos 2 (int64 min)", fn: "time.parse_ns", args: [L, "1677-09-21T00:12:43.145224192-00:00"], want: -9223372036854775808n },
  { note: "time/parse_nanos 3 (int64 max)", fn: "time.parse_ns", args: [L, "2262-04-11T23:47:16.854775807-00:00"], want: 9223372036854775807n },
  { note: "time/parse_nanos 4", fn: "time.parse_ns", args: ["01/02 03:04:05PM '06 -0700", "06/02 07:00:00PM '17 -0700"], want: 1496455200000000000n },
  { note: "time/parse_nanos 5", fn: "time.parse_ns", args: ["02 Jan 06 15:04 -0700", "02 Jun 17 19:00 -0700"], want: 1496455200000000000n },
  { note: "time/parse_nanos 6 (named layout)", fn: "time.parse_ns", args: ["RFC822Z", "02 Jun 17 19:00 -0700"], want: 1496455200000000000n },
  { note: "time/parse_nanos_too_small", fn: "time.parse_ns", args: [L, "1677-09-21T00:12:43.145224191-00:00"], want: { error: "eval_builtin_error: time outside of valid range" } },
  { note: "time/parse_nanos_too_large", fn: "time.parse_ns", args: [L, "2262-04-11T23:47:16.854775808-00:00"], want: { error: "eval_builtin_error: time outside of valid range" } },
  { note: "time/parse duration nanos", fn: "time.parse_duration_ns", args: ["100ms"], want: 100000000 },
  { note: "time/date", fn: "time.date", args: [ns(1517814000)], want: [2018, 2, 5] },
  { note: "time/date with empty tz", fn: "time.date", args: [[ns(1517832000), ""]], want: [2018, 2, 5] },
  { note: "time/date leap day", fn: "time.date", args: [ns(1582977600)], want: [2020, 2, 29] },
  { note: "time/clock", fn: "time.clock", args: [ns(1517832000)], want: [12, 0, 0] },
  { note: "time/clock with NY tz", fn: "time.clock", args: [[ns(1517832000), "America/New_York"]], want: [7, 0, 0] },
  { note: "netcidrcontains/cidr contains subnet", fn: "net.cidr_contains", args: ["10.0.0.0/8", "10.1.0.0/24"], want: true },
  { note: "netcidrcontains/cidr does not contain subnet partial", fn: "net.cidr_contains", args: ["172.17.0.0/24", "172.17.0.0/16"], want: false },
  { note: "netcidrcontains/cidr contains single ip subnet", fn: "net.cidr_contains", args: ["10.0.0.0/8", "10.1.1.1/32"], want: true },
  { note: "netcidrcontains/cidr contains subnet ipv6", fn: "net.cidr_contains", args: ["2001:4860:4860::8888/32", "2001:4860:4860:1234::8888/40"], want: true },
  { note: "netcidrcontains/cidr does not contain subnet partial ipv6", fn: "net.cidr_contains", args: ["2001:4860::/96", "2001:4860::/32"], want: false },
  { note: "netcidrcontains/cidr does not contain subnet ipv6", fn: "net.cidr_contains", args: ["2001:4860::/32", "fd1e:5bfe:8af3:9ddc::/64"], want: false },
  { note: "netcidrcontains/cidr subnet overlap malformed cidr b", fn: "net.cidr_contains", args: ["192.168.1.0/28", "not-a-cidr"], want: { error: "eval_builtin_error: not a valid textual representation" } },
  { note: "netcidrcontains/cidr contains ip", fn: "net.cidr_contains", args: ["10.0.0.0/8", "10.1.2.3"], want: true },
  { note: "globsmatch/regex.globs_match", fn: "regex.globs_match", args: ["a.a.[0-9]+z", ".b.b2359825792*594823z"], want: true },
  { note: "globsmatch/regex.globs_match (no common non-empty string)", fn: "regex.globs_match", args: ["[a-z]+", "[0-9]*"], want: false },
  { note: "globsmatch/regex.globs_match: ref bar", fn: "regex.globs_match", args: ["b.*", "bar"], want: true },
  { note: "globsmatch/regex.globs_match: raw", fn: "regex.globs_match", args: ["[a-z]+\\[[0-9]+\\]", "foo\\[1\\]"], want: true },
  { note: "regexmatch/regex.match", fn: "regex.match", args: ["^[a-z]+\\[[0-9]+\\]$", "foo[1]"], want: true },
  { note: "units_parse/exact comparison - regression case 1", fn: "units.parse", args: ["500m"], want: 0.5 },
  { note: "units_parse/exact comparison - regression case 2", fn: "units.parse", args: ["0.0005K"], want: 0.5 },
  { note: "units_parse/exact comparison - regression case 3", fn: "units.parse", args: ["0.0000005M"], want: 0.5 },
  { note: "units_parse/no decimal places for integers", fn: "units.parse", args: ["1G"], want: 1000000000 },
  { note: "units_parse/1.1 Ki floating point, not rounded", fn: "units.parse", args: ["1.1Ki"], want: 1126.4 },
  { note: "units_parse/removes quotes and lowercases string", fn: "units.parse", args: ['"100TI"'], want: 109951162777600 },
  { note: "units_parse_bytes/removes quotes and lowercases string", fn: "units.parse_bytes", args: ['"100TIB"'], want: 109951162777600 },
  { note: "units_parse_bytes/1.1 KiB floating point rounded", fn: "units.parse_bytes", args: ["1.1KiB"], want: 1126 },
  { note: "units_parse_bytes/.5 KB bare floating point", fn: "units.parse_bytes", args: [".5KB"], want: 500 },
  { note: "units_parse_bytes/zero bare float", fn: "units.parse_bytes", args: [".0"], want: 0 },
  { note: "units_parse_bytes/10 etabytes as e", fn: "units.parse_bytes", args: ["10e"], want: 10000000000000000000n },
  { note: "units_parse_bytes/10 ebibytes as eib", fn: "units.parse_bytes", args: ["10eib"], want: 11529215046068469760n },
  { note: "units_parse/10 ebi as Ei", fn: "units.parse", args: ["10Ei"], want: 11529215046068469760n },
];

// The size tables of parse-bytes.yaml / parse-units.yaml: unit -> multiplier.
const bytesUnits: Record<string, bigint> = {
  k: 1000n, kb: 1000n, ki: 1024n, kib: 1024n, m: 10n ** 6n, mb: 10n ** 6n, mi: 1n << 20n, mib: 1n << 20n,
  g: 10n ** 9n, gb: 10n ** 9n, gi: 1n << 30n, gib: 1n << 30n, t: 10n ** 12n, tb: 10n ** 12n, ti: 1n << 40n, tib: 1n << 40n,
  p: 10n ** 15n, pb: 10n ** 15n, pi: 1n << 50n, pib: 1n << 50n,
};
for (const [u, m] of Object.entries(bytesUnits)) {
  const want = 100n * m;
  rows.push({ note: `units_parse_bytes/100 ${u}`, fn: "units.parse_bytes", args: [`100${u}`], want: want <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(want) : want });
}
const unitsUnits: Record<string, bigint> = { k: 1000n, K: 1000n, ki: 1024n, Ki: 1024n, M: 10n ** 6n, mi: 1n << 20n, Mi: 1n << 20n, g: 10n ** 9n, gi: 1n << 30n, t: 10n ** 12n, T: 10n ** 12n, ti: 1n << 40n, Ti: 1n << 40n, p: 10n ** 15n, P: 10n ** 15n, pi: 1n << 50n, Pi: 1n << 50n };
for (const [u, m] of Object.entries(unitsUnits)) {
  const want = 100n * m;
  rows.push({ note: `units_parse/100 ${u}`, fn: "units.parse", args: [`100${u}`], want: want <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(want) : want });
}

describe("host builtins against the conformance suite's expectations", () => {
  it.each(rows)("$note", ({ fn, args, want }) => {
    const got = call(fn, ...args);
    if (typeof want === "object" && want !== null && "error" in want) {
      expect("error" in got ? got.error : `value ${String((got as { ok: unknown }).ok)}`).toContain((want as { error: string }).error);
    } else {
      expect(got).toEqual({ ok: want });
    }
  });

  it("units comparisons hold (parse-bytes-comparisons, parse-units-comparisons)", () => {
    const v = (fn: string, s: string): number => Number((call(fn, s) as { ok: unknown }).ok);
    expect(v("units.parse_bytes", "8kb")).toBeGreaterThan(v("units.parse_bytes", "7kb"));
    expect(v("units.parse_bytes", "1024")).toBe(v("units.parse_bytes", "1KiB"));
    expect(v("units.parse_bytes", "3MiB")).toBeGreaterThan(v("units.parse_bytes", "3MB"));
    expect(v("units.parse_bytes", "4.1Mi")).toBeGreaterThan(v("units.parse_bytes", "4Mi"));
    expect(v("units.parse_bytes", "128Gi")).toBe(v("units.parse_bytes", "137438953472"));
    expect(v("units.parse", "3Mi")).toBeGreaterThan(v("units.parse", "3M"));
    expect(v("units.parse", "1024")).toBe(v("units.parse", "1Ki"));
    expect(Math.round(v("units.parse", "100m") * 1000)).toBe(100);
  });
});
