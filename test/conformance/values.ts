/**
 * JSON value comparison with OPA's semantics for result sets: numbers compare by
 * value (1 == 1.0), objects ignore key order, collections order like OPA's
 * `util.Compare` (null < boolean < number < string < array < object).
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const rank = (v: unknown): number => {
  if (v === null || v === undefined) return 0;
  if (typeof v === "boolean") return 1;
  if (typeof v === "number" || typeof v === "bigint") return 2;
  if (typeof v === "string") return 3;
  if (Array.isArray(v)) return 4;
  return 5;
};

export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return 0;
    case 1:
      return Number(a) - Number(b);
    case 2: {
      const x = Number(a);
      const y = Number(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 3:
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
    case 4: {
      const xs = a as unknown[];
      const ys = b as unknown[];
      for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
        const c = compareValues(xs[i], ys[i]);
        if (c !== 0) return c;
      }
      return xs.length - ys.length;
    }
    default: {
      const xo = a as Record<string, unknown>;
      const yo = b as Record<string, unknown>;
      const xk = Object.keys(xo).sort();
      const yk = Object.keys(yo).sort();
      for (let i = 0; i < Math.min(xk.length, yk.length); i++) {
        const kc = compareValues(xk[i], yk[i]);
        if (kc !== 0) return kc;
        const vc = compareValues(xo[xk[i]!], yo[yk[i]!]);
        if (vc !== 0) return vc;
      }
      return xk.length - yk.length;
    }
  }
}

export const valuesEqual = (a: unknown, b: unknown): boolean => compareValues(a, b) === 0;

/** Sorts every array-valued binding (OPA's runner does this for `sort_bindings`). */
export function sortBindingValues(b: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) out[k] = Array.isArray(v) ? [...v].sort(compareValues) : v;
  return out;
}

/**
 * Result sets are sets of binding objects: solution order and duplicates do not
 * matter (OPA's runner builds an `ast.Set` on both sides).
 */
export function resultSetsEqual(
  want: readonly Readonly<Record<string, unknown>>[],
  got: readonly Readonly<Record<string, unknown>>[],
  sortBindings: boolean,
): boolean {
  const norm = (rs: readonly Readonly<Record<string, unknown>>[]): unknown[] =>
    dedupe(rs.map((b) => (sortBindings ? sortBindingValues(b) : b)));
  const w = norm(want);
  const g = norm(got);
  return w.length === g.length && w.every((x, i) => valuesEqual(x, g[i]));
}

function dedupe(xs: unknown[]): unknown[] {
  const sorted = [...xs].sort(compareValues);
  return sorted.filter((x, i) => i === 0 || !valuesEqual(x, sorted[i - 1]));
}
