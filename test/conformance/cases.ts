/**
 * Loads OPA's YAML conformance cases (format: ../shared/conformance/opa-v1/NOTICE.md).
 * Both layouts (`cases:` with 4-space indent, and `---` with 2) parse as YAML; we
 * only normalise keys into one typed shape and give every case a stable id.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { parse } from "yaml";

export interface ConformanceCase {
  /** `<file relative to the root>#<index in the file>`: notes are not unique. */
  readonly id: string;
  readonly note: string;
  /** First directory under the root (upstream: `testdata/v1/<topic>`). */
  readonly topic: string;
  readonly file: string;
  readonly query: string;
  readonly modules: readonly string[];
  readonly data?: unknown;
  readonly input?: unknown;
  readonly inputTerm?: string;
  /** Expected solutions, one binding map each; `[]` means undefined. */
  readonly wantResult?: readonly Readonly<Record<string, unknown>>[];
  readonly sortBindings: boolean;
  readonly wantErrorCode?: string;
  readonly wantError?: string;
  readonly strictError: boolean;
}

export class CaseFormatError extends Error {
  override name = "CaseFormatError";
}
export const isCaseFormatError = (e: unknown): e is CaseFormatError =>
  e instanceof Error && e.name === "CaseFormatError";

/** Every `*.yaml` file below `root`, sorted, as paths relative to `root`. */
export function listCaseFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".yaml")) out.push(relative(root, full).split(sep).join("/"));
    }
  };
  walk(root);
  return out;
}

export function loadCases(root: string): ConformanceCase[] {
  return listCaseFiles(root).flatMap((file) => parseCaseFile(readFileSync(join(root, file), "utf8"), file));
}

/** Parses one file's text; `file` is its path relative to the root (`topic/name.yaml`). */
export function parseCaseFile(text: string, file: string): ConformanceCase[] {
  const doc: unknown = parse(text);
  const list = isRecord(doc) ? doc["cases"] : undefined;
  if (!Array.isArray(list)) throw new CaseFormatError(`${file}: no top-level 'cases' list`);
  const topic = file.includes("/") ? file.slice(0, file.indexOf("/")) : file.replace(/\.yaml$/, "");
  return list.map((raw, index) => toCase(raw, `${file}#${index}`, topic, file));
}

function toCase(raw: unknown, id: string, topic: string, file: string): ConformanceCase {
  if (!isRecord(raw)) throw new CaseFormatError(`${id}: a case must be a map`);
  const str = (key: string): string | undefined => {
    const v = raw[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") throw new CaseFormatError(`${id}: '${key}' must be a string`);
    return v;
  };
  const query = str("query");
  if (query === undefined) throw new CaseFormatError(`${id}: missing 'query'`);
  const modules = raw["modules"] ?? [];
  if (!Array.isArray(modules) || !modules.every((m) => typeof m === "string")) {
    throw new CaseFormatError(`${id}: 'modules' must be a list of strings`);
  }
  const want = raw["want_result"];
  if (want !== undefined && want !== null && (!Array.isArray(want) || !want.every(isRecord))) {
    throw new CaseFormatError(`${id}: 'want_result' must be a list of maps`);
  }
  const c: ConformanceCase = {
    id,
    note: str("note") ?? id,
    topic,
    file,
    query,
    modules: modules as string[],
    sortBindings: raw["sort_bindings"] === true,
    strictError: raw["strict_error"] === true,
    ...("data" in raw && raw["data"] !== null ? { data: raw["data"] } : {}),
    ...("input" in raw ? { input: raw["input"] } : {}),
    ...optional("inputTerm", str("input_term")),
    ...(Array.isArray(want) ? { wantResult: want as Record<string, unknown>[] } : {}),
    ...optional("wantErrorCode", str("want_error_code")),
    ...optional("wantError", str("want_error")),
  };
  if (c.wantResult === undefined && c.wantErrorCode === undefined && c.wantError === undefined) {
    throw new CaseFormatError(`${id}: needs want_result, want_error_code or want_error`);
  }
  return c;
}

function optional<K extends string>(key: K, v: string | undefined): { [P in K]?: string } {
  return (v === undefined ? {} : { [key]: v }) as { [P in K]?: string };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
