/** Loads every Rego module of the OPA conformance cases (shared fixture for front-end tests and the bench). */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parse } from "yaml";
import { defaultCaseDir } from "./conformance-dir.js";

export const conformanceRoot = defaultCaseDir;

export interface ConformanceModule {
  readonly file: string;
  readonly note: string;
  readonly caseIndex: number;
  readonly source: string;
  readonly wantErrorCode: string | null;
}

interface RawCase {
  note?: string;
  modules?: string[];
  want_error_code?: string;
}

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (name.endsWith(".yaml")) out.push(p);
  }
  return out;
}

/** One entry per case: all its modules (a case compiles them together). */
export interface ConformanceCase {
  readonly file: string;
  readonly note: string;
  readonly modules: readonly { file: string; source: string }[];
  readonly wantErrorCode: string | null;
  readonly query: string | null;
}

export function loadConformanceCases(root = conformanceRoot): ConformanceCase[] {
  const out: ConformanceCase[] = [];
  for (const path of yamlFiles(root)) {
    const doc = parse(readFileSync(path, "utf8")) as { cases?: (RawCase & { query?: string })[] } | null;
    const rel = relative(root, path);
    (doc?.cases ?? []).forEach((c, i) => {
      const modules = (c.modules ?? []).map((source, j) => ({ file: `${rel}#${i}.${j}.rego`, source }));
      out.push({ file: rel, note: c.note ?? `${rel}#${i}`, modules, wantErrorCode: c.want_error_code ?? null, query: c.query ?? null });
    });
  }
  return out;
}
