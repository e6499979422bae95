/**
 * Turns a Rego query into one that captures each expression's value, as
 * `opa eval` reports them: a bare term's value, a builtin call's result, `true`
 * for unifications. Captured values come back as bindings `__exprN__`.
 */
import type { Diagnostic } from "../diagnostics.js";
import { parseQuery } from "../rego/index.js";

export interface CapturedExpr {
  readonly text: string;
  readonly row: number;
  readonly col: number;
  /** Binding holding the value, or null when the value is `true`. */
  readonly capture: string | null;
}

export interface CaptureQuery {
  readonly body: string;
  readonly exprs: CapturedExpr[];
}

export function captureQuery(query: string): { query: CaptureQuery | null; errors: Diagnostic[] } {
  const parsed = parseQuery(query, "query");
  if (parsed.body === null) return { query: null, errors: parsed.errors };
  const lines = query.split("\n");
  const offset = (row: number, col: number): number => lines.slice(0, row - 1).reduce((n, l) => n + l.length + 1, 0) + col - 1;
  const starts = parsed.body.map((e) => offset(e.location.row, e.location.col));
  const exprs: CapturedExpr[] = [];
  const parts: string[] = [];
  parsed.body.forEach((e, i) => {
    const text = query.slice(starts[i]!, starts[i + 1] ?? query.length).trim().replace(/;$/, "").trim();
    const plain = !e.negated && e.with.length === 0;
    const op = e.type === "callexpr" ? e.operator.join(".") : "";
    // A bare term shows its value (false included); a lone call shows its result.
    // Calls among several expressions keep filtering, as in `x := xs[_]; x > 1`.
    const lone = parsed.body!.length === 1;
    const capturable = plain && (e.type === "termexpr" || (lone && e.type === "callexpr" && op !== "eq" && op !== "assign"));
    const capture = capturable ? `__expr${i}__` : null;
    parts.push(capture === null ? text : `${capture} = (${text})`);
    exprs.push({ text, row: e.location.row, col: e.location.col, capture });
  });
  return { query: { body: parts.join("\n"), exprs }, errors: [] };
}

/** `opa eval --format json` output for a result set of binding objects. */
export function formatEvalResult(q: CaptureQuery, resultSet: readonly Record<string, unknown>[]): unknown {
  if (resultSet.length === 0) return {};
  const captured = new Set(q.exprs.map((e) => e.capture).filter((c): c is string => c !== null));
  return {
    result: resultSet.map((b) => {
      const bindings = Object.fromEntries(Object.entries(b).filter(([k]) => !captured.has(k)));
      const out: Record<string, unknown> = {
        expressions: q.exprs.map((e) => ({
          value: e.capture === null ? true : b[e.capture],
          text: e.text,
          location: { row: e.row, col: e.col },
        })),
      };
      if (Object.keys(bindings).length > 0) out["bindings"] = bindings;
      return out;
    }),
  };
}
