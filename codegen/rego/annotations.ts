/**
 * METADATA annotations: a comment block starting with `# METADATA` in column 1,
 * the comment lines right below it holding YAML. Each block belongs to the first
 * statement after it (package, import or rule). Its value is the JSON object
 * `rego.metadata.rule()` / `rego.metadata.chain()` return, as OPA builds it: the
 * scope always (default `rule`, `document` for an entrypoint rule, `package` on a
 * package), the other fields only when set; unknown keys are ignored, as OPA's
 * YAML reading does.
 */
import { parse as parseYaml } from "yaml";
import type { Diagnostic } from "../diagnostics.js";
import type { Annotation, AnnotationScope, Comment, JsonValue, Location, Module } from "./ast.js";

const SCOPES: readonly AnnotationScope[] = ["rule", "document", "package", "subpackages"];

export function parseAnnotations(m: Module): { annotations: Annotation[]; errors: Diagnostic[] } {
  const annotations: Annotation[] = [];
  const errors: Diagnostic[] = [];
  const comments = m.comments;
  for (let i = 0; i < comments.length; i++) {
    const c = comments[i]!;
    if (!isMetadataStart(c)) continue;
    // The block ends at a gap, at a comment after code, or where the next block starts.
    const lines: Comment[] = [];
    for (let n = comments[i + 1]; n !== undefined && n.location.row === comments[i]!.location.row + 1 && n.location.col === 1 && !isMetadataStart(n); n = comments[i + 1]) {
      lines.push(n);
      i++;
    }
    const fail = (message: string, at: Location = c.location): void => {
      errors.push({ code: "rego_parse_error", message, location: at, hint: "a # METADATA block holds YAML: scope, title, description, related_resources, authors, organizations, schemas, entrypoint, custom" });
    };
    const target = targetAfter(m, c.location.row);
    const a = readBlock(lines, target, c.location, fail);
    if (a !== null) annotations.push(a);
  }
  return { annotations, errors };
}

const isMetadataStart = (c: Comment): boolean => c.location.col === 1 && c.text.trim().startsWith("METADATA");

type Target = Annotation["target"] | null;

function targetAfter(m: Module, row: number): Target {
  let best: { row: number; target: Target } | null = null;
  const consider = (r: number, target: Target): void => {
    if (r > row && (best === null || r < best.row)) best = { row: r, target };
  };
  consider(m.package.location.row, { kind: "package" });
  for (const imp of m.imports) consider(imp.location.row, { kind: "import" });
  m.rules.forEach((r, i) => consider(r.location.row, { kind: "rule", rule: i }));
  return (best as { row: number; target: Target } | null)?.target ?? null;
}

function readBlock(lines: readonly Comment[], target: Target, location: Location, fail: (message: string, at?: Location) => void): Annotation | null {
  // `# title: x` -> `title: x`: the one space after `#` belongs to the comment marker.
  const text = lines.map((l) => (l.text.startsWith(" ") ? l.text.slice(1) : l.text)).join("\n");
  if (text.trim() === "") {
    fail("expected METADATA block, found whitespace");
    return null;
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    const yamlLine = (e as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    const at = yamlLine === undefined ? location : (lines[yamlLine - 1]?.location ?? location);
    fail(`invalid METADATA block: ${(e instanceof Error ? e.message : String(e)).split("\n")[0]}`, at);
    return null;
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    fail("invalid METADATA block: expected a mapping of annotation keys");
    return null;
  }
  const r = raw as Record<string, unknown>;
  if (target === null) {
    fail("METADATA block is not followed by a package or rule");
    return null;
  }
  const entrypoint = r["entrypoint"] === true;
  let scope: AnnotationScope;
  if (r["scope"] === undefined) scope = target.kind === "package" ? "package" : entrypoint ? "document" : "rule";
  else if (typeof r["scope"] === "string" && (SCOPES as readonly string[]).includes(r["scope"])) scope = r["scope"] as AnnotationScope;
  else {
    fail(`invalid annotation scope '${String(r["scope"])}': must be one of ${SCOPES.join(", ")}`);
    return null;
  }
  const onPackage = scope === "package" || scope === "subpackages";
  const have = target.kind;
  if (onPackage !== (have === "package") || have === "import") {
    fail(`annotation scope '${scope}' must be applied to ${onPackage ? "package" : "rule"} (have ${have})`);
    return null;
  }
  const value: Record<string, JsonValue> = { scope };
  const problems: string[] = [];
  const str = (k: string): void => {
    const v = r[k];
    if (v === undefined || v === null) return;
    if (typeof v !== "string") problems.push(`${k} must be a string`);
    else if (v !== "") value[k] = v;
  };
  str("title");
  str("description");
  if (entrypoint) value["entrypoint"] = true;
  else if (r["entrypoint"] !== undefined && r["entrypoint"] !== false) problems.push("entrypoint must be a boolean");
  const list = (k: string, item: (x: unknown) => Item): void => {
    const v = r[k];
    if (v === undefined || v === null) return;
    if (!Array.isArray(v)) {
      problems.push(`${k} must be a list`);
      return;
    }
    const out: JsonValue[] = [];
    for (const x of v) {
      const y = item(x);
      if ("error" in y) problems.push(`${k}: ${y.error}`);
      else out.push(y.ok);
    }
    if (out.length > 0) value[k] = out;
  };
  list("organizations", (x) => (typeof x === "string" ? { ok: x } : { error: "an organization must be a string" }));
  list("related_resources", relatedResource);
  list("authors", author);
  list("schemas", schema);
  const custom = r["custom"];
  if (custom !== undefined && custom !== null) {
    if (typeof custom !== "object" || Array.isArray(custom)) problems.push("custom must be a mapping");
    else if (Object.keys(custom).length > 0) value["custom"] = toJson(custom);
  }
  if (problems.length > 0) {
    fail(`invalid METADATA block: ${problems.join("; ")}`);
    return null;
  }
  return { type: "annotation", scope, value, target, location };
}

type Item = { readonly ok: JsonValue } | { readonly error: string };

/** A related resource: a URL string, or `{ref, description}`. */
function relatedResource(x: unknown): Item {
  const check = (ref: unknown): string | null => {
    if (typeof ref !== "string" || ref === "") return "a related resource needs a ref";
    try {
      new URL(ref);
      return null;
    } catch {
      return `invalid URL ${JSON.stringify(ref)}`;
    }
  };
  if (typeof x === "string") {
    const bad = check(x);
    return bad === null ? { ok: { ref: x } } : { error: bad };
  }
  if (typeof x !== "object" || x === null || Array.isArray(x)) return { error: "a related resource must be a URL or a mapping" };
  const o = x as Record<string, unknown>;
  const bad = check(o["ref"]);
  if (bad !== null) return { error: bad };
  const out: Record<string, JsonValue> = { ref: o["ref"] as string };
  if (typeof o["description"] === "string" && o["description"] !== "") out["description"] = o["description"];
  return { ok: out };
}

/** `Jane Doe <jane@example.com>` or `{name, email}` (OPA's parseAuthor). */
function author(x: unknown): Item {
  let name = "";
  let email = "";
  if (typeof x === "string") {
    const parts = x.split(/\s+/).filter((p) => p !== "");
    const last = parts[parts.length - 1];
    if (last !== undefined && last.length >= 2 && last.startsWith("<") && last.endsWith(">")) {
      email = last.slice(1, -1);
      parts.pop();
    }
    name = parts.join(" ");
  } else if (typeof x === "object" && x !== null && !Array.isArray(x)) {
    const o = x as Record<string, unknown>;
    name = typeof o["name"] === "string" ? o["name"] : "";
    email = typeof o["email"] === "string" ? o["email"] : "";
  } else return { error: "an author must be a string or a mapping" };
  if (name === "" && email === "") return { error: "author information is missing" };
  const out: Record<string, JsonValue> = {};
  if (name !== "") out["name"] = name;
  if (email !== "") out["email"] = email;
  return { ok: out };
}

/** `- input.x: schema.y` (a schema ref) or `- input.x: {type: ...}` (an inline definition). */
function schema(x: unknown): Item {
  if (typeof x !== "object" || x === null || Array.isArray(x) || Object.keys(x).length !== 1) return { error: "a schema entry must map one path to a schema" };
  const [path, s] = Object.entries(x as Record<string, unknown>)[0]!;
  const out: Record<string, JsonValue> = { path: path.split(".") };
  if (typeof s === "string") out["schema"] = s.split(".");
  else out["definition"] = toJson(s);
  return { ok: out };
}

function toJson(v: unknown): JsonValue {
  if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "object") return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, toJson(x)]));
  return String(v);
}
