/**
 * Coverage by source instrumentation, used while the compiler has no coverage
 * option of its own (codegen/compiler/REQUESTS-from-tooling.md). Before every
 * expression of a rule body, and at the end of the body (the rule produced a
 * value), a marker expression is inserted:
 *
 *     glob.quote_meta("\u0000toolgate-cover:17") != ""      (see `carrier`)
 *
 * It is ground (so safety ordering leaves it in place), always true, and calls a
 * builtin that runs on the host, where `coverageBuiltins` records point 17 and
 * answers. The instrumented modules are printed with the formatter and compiled
 * for the coverage pass only; test results come from the uninstrumented build.
 */
import type { Body, CallExpr, ElseClause, Expr, Location, Module, Rule } from "../rego/ast.js";
import { printModule } from "../rego/format/index.js";
import { isHostBuiltin } from "../wasm/host-builtins.js";
import { NATIVE_BUILTINS } from "../wasm/runtime-builtins.js";
import type { CoveragePoint } from "./coverage.js";

/**
 * Host builtins of arity 1 that take a string; the first one that still runs on
 * the host carries the markers (the host wrapper answers before the real
 * implementation, so what the builtin does does not matter).
 */
const candidates = ["glob.quote_meta", "regex.is_valid", "net.cidr_is_valid", "time.parse_duration_ns", "time.parse_rfc3339_ns"];
const onHost = (name: string): boolean => isHostBuiltin(name) && NATIVE_BUILTINS[name] === undefined;
/** The builtin that carries the markers, or undefined when none runs on the host. */
export const carrier: string | undefined = candidates.find(onHost);
const marker = "\u0000toolgate-cover:";

export interface Instrumented {
  readonly sources: { file: string; source: string }[];
  readonly points: CoveragePoint[];
}

export function instrument(modules: readonly Module[], skip: (rule: Rule) => boolean, via: string): Instrumented {
  const points: CoveragePoint[] = [];
  const mark = (file: string, row: number, kind: CoveragePoint["kind"], location: Location): Expr => {
    const id = points.push({ file, row, kind }) - 1;
    const call: CallExpr = {
      type: "callexpr",
      operator: ["neq"],
      args: [
        { type: "call", operator: via.split("."), args: [{ type: "string", value: `${marker}${id}`, location }], location },
        { type: "string", value: "", location },
      ],
      negated: false,
      with: [],
      location,
    };
    return call;
  };
  const body = (file: string, b: Body, headRow: number, absent: boolean, location: Location): Body => {
    const out: Expr[] = [];
    if (!absent) {
      for (const e of b) {
        out.push(mark(file, e.location.row, "expr", e.location));
        out.push(e.type === "every" ? { ...e, body: body(file, e.body, -1, false, e.location) } : e);
      }
    }
    if (headRow > 0) out.push(mark(file, headRow, "head", location));
    return out;
  };
  const elseChain = (file: string, e: ElseClause | null): ElseClause | null =>
    e === null ? null : { ...e, body: body(file, e.body, e.location.row, isAbsent(e.body), e.location), else: elseChain(file, e.else) };

  const sources = modules.map((m) => {
    const rules = m.rules.map((r) =>
      r.default || skip(r)
        ? r
        : { ...r, body: body(m.file, r.body, r.location.row, isAbsent(r.body), r.location), else: elseChain(m.file, r.else) },
    );
    return { file: m.file, source: printModule({ ...m, rules, comments: [] }) };
  });
  return { sources, points };
}

function isAbsent(b: Body): boolean {
  const e = b[0];
  return b.length === 1 && e?.type === "termexpr" && e.term.type === "boolean" && e.term.value && !e.negated && e.with.length === 0;
}

/** Host builtins that record marker calls into `hits` and pass every other call through. */
export function coverageBuiltins(
  builtins: Readonly<Record<string, (...args: unknown[]) => unknown>>,
  hits: Uint8Array,
  via: string,
): Record<string, (...args: unknown[]) => unknown> {
  const out = { ...builtins };
  for (const name of [`toolgate/${via}`, `toolgate/strict/${via}`]) {
    const real = builtins[name];
    if (real === undefined) continue;
    out[name] = (...args: unknown[]) => {
      const s = args[0];
      if (typeof s === "string" && s.startsWith(marker)) {
        hits[Number(s.slice(marker.length))] = 1;
        return "covered";
      }
      return real(...args);
    };
  }
  return out;
}
