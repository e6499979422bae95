/**
 * The shared shape of `npm run bench` (bench/all.ts): every benchmark that feeds it
 * exports a RowSource whose rows put toolgate's figure next to the anchors measured in
 * the same process, so the ratios are reproducible on any machine.
 */

export interface Figure {
  readonly label: string;
  readonly value: number;
}

export interface BenchRow {
  /** What is measured, e.g. "one decision of policies/authz.rego, SDK path". */
  readonly what: string;
  /** Unit of every figure in the row, e.g. "µs/decision", "calls/s", "s", "MB". */
  readonly unit: string;
  /** Whether a lower ("µs") or a higher ("calls/s") figure is better; ratios are read as speed. */
  readonly better: "lower" | "higher";
  readonly toolgate: Figure;
  /** Measured in the same process and run; empty when the row has no anchor. */
  readonly anchors: readonly Figure[];
  /** Extra facts for the reader (targets, breakdowns, why an anchor is missing). */
  readonly notes?: readonly string[];
}

export interface RowContext {
  /** A short run: fewer rounds, smaller batches; figures are noisier. */
  readonly quick: boolean;
  /** PostgreSQL for the PG rows; undefined skips them. */
  readonly pgUrl: string | undefined;
  /** Progress to stderr. */
  log(message: string): void;
}

/**
 * A source's rows, or why it measured nothing. `missing` names each row or anchor a
 * source could not measure this run (no PostgreSQL, no public corpus, a case that
 * does not compile) and why, so nothing is dropped silently.
 */
export type RowResult = { readonly rows: readonly BenchRow[]; readonly missing?: readonly string[] } | { readonly skipped: string };

export interface RowSource {
  /** Short name, e.g. "policy", "store"; `npm run bench -- --only policy,fuel` selects by it. */
  readonly name: string;
  run(ctx: RowContext): Promise<RowResult>;
}

/** toolgate's speed (or, for sizes, its economy) relative to an anchor: > 1 means toolgate is better. */
export function speedRatio(row: BenchRow, anchor: Figure): number {
  return row.better === "lower" ? anchor.value / row.toolgate.value : row.toolgate.value / anchor.value;
}

/** Sizes (memory, bytes) read as smaller/larger; every other unit as faster/slower. */
const isSize = (unit: string): boolean => /^(?:[KMG]i?B|B)(?:\s|$)/.test(unit);

export function ratioText(row: BenchRow, anchor: Figure): string {
  const s = speedRatio(row, anchor);
  if (!Number.isFinite(s) || s <= 0) return "n/a";
  const [better, worse] = isSize(row.unit) ? ["smaller", "larger"] : ["faster", "slower"];
  const words = Math.abs(s - 1) < 0.005 ? "the same as" : s >= 1 ? `${fixed(s)}x ${better} than` : `${fixed(1 / s)}x ${worse} than`;
  return `${fixed(s)}x (${words} ${anchor.label})`;
}

function fixed(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 0.1 ? x.toFixed(2) : x.toPrecision(2);
}

/** Interleaved rounds of `batch` calls each (forward, then backward, so drifting load hits all alike); median µs per call of every contender. */
export function interleaved(contenders: readonly (() => unknown)[], rounds: number, batch: number): number[] {
  const times = contenders.map(() => [] as number[]);
  for (const c of contenders) for (let i = 0; i < batch; i++) c(); // warm-up
  for (let r = 0; r < rounds; r++) {
    const order = contenders.map((_, k) => k);
    if (r % 2 === 1) order.reverse();
    for (const k of order) {
      const c = contenders[k]!;
      const t = performance.now();
      for (let i = 0; i < batch; i++) c();
      times[k]!.push(((performance.now() - t) * 1000) / batch);
    }
  }
  return times.map(median);
}

/** A figure in its unit with a sensible number of digits. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "-";
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 10_000) return Math.round(v).toLocaleString("en-US");
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toPrecision(2);
}

/** The median of a non-empty list. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
