import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from "yaml";
import type { Diagnostic, SourceLocation } from "../diagnostics.js";

/** A parsed YAML file that can answer "where is this path?" for diagnostics. */
export interface YamlSource {
  readonly file: string;
  readonly value: unknown;
  /** Location of the value at `path`; with `key: true`, of the map key naming it. Falls back to the nearest ancestor. */
  locate(path: readonly (string | number)[], options?: { key?: boolean }): SourceLocation;
}

/**
 * Parses YAML with positions. Duplicate keys are reported and the parse goes on (the
 * later entry wins), so later stages still check the rest of the file; any other YAML
 * problem leaves no usable document (`source: null`).
 */
export function parseYamlSource(source: string, file: string): { source: YamlSource | null; errors: Diagnostic[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true });
  const at = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, row: line, col };
  };
  const errors: Diagnostic[] = doc.errors.map((e) => {
    const duplicate = e.code === "DUPLICATE_KEY";
    return {
      code: duplicate ? "duplicate_key" : "yaml_syntax_error",
      message: duplicate ? "duplicate key: a key may appear only once in a mapping" : firstLine(e.message),
      location: at(e.pos[0]),
      hint: duplicate ? "remove or rename one of the two entries" : "fix the YAML syntax at this position",
    };
  });
  if (errors.some((e) => e.code !== "duplicate_key")) return { source: null, errors };
  const aliasErrors = unresolvedAliases(doc, at);
  if (aliasErrors.length > 0) return { source: null, errors: [...errors, ...aliasErrors] };
  const keyErrors = reservedKeys(doc, at);
  if (keyErrors.length > 0) return { source: null, errors: [...errors, ...keyErrors] };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // e.g. an alias expanding past the alias count: located at the document, not a stack trace.
    const message = err instanceof Error ? firstLine(err.message) : String(err);
    return { source: null, errors: [...errors, { code: "yaml_syntax_error", message, location: at(rangeStart(doc.contents) ?? 0), hint: "simplify the anchors and aliases" }] };
  }
  return { source: { file, value, locate: (path, options) => locate(doc, path, options?.key ?? false, at) }, errors };
}

/** Every alias (`*name`) without an anchor (`&name`) before it, located at the alias. */
function unresolvedAliases(doc: Document, at: (offset: number) => SourceLocation): Diagnostic[] {
  const out: Diagnostic[] = [];
  visit(doc, {
    Alias(_key, alias) {
      if (alias.resolve(doc) !== undefined) return;
      out.push({
        code: "yaml_syntax_error",
        message: `unresolved alias *${alias.source}: no anchor &${alias.source} before it`,
        location: at(alias.range?.[0] ?? 0),
        hint: `define the anchor (&${alias.source}) before its first use, or write the value out`,
      });
    },
  });
  return out;
}

/**
 * Every `__proto__` mapping key: JavaScript object literals, JSON Schema tools and the
 * generated code would read it as the object's prototype rather than a field, so no
 * field, property or tool may have that name.
 */
function reservedKeys(doc: Document, at: (offset: number) => SourceLocation): Diagnostic[] {
  const out: Diagnostic[] = [];
  visit(doc, {
    Pair(_key, pair) {
      if (!isScalar(pair.key) || String(pair.key.value) !== "__proto__") return;
      out.push({
        code: "reserved_key",
        message: `"__proto__" cannot be a key: JavaScript treats it as an object's prototype, not as a field`,
        location: at(rangeStart(pair.key) ?? 0),
        hint: "rename the field (the model's arguments cannot carry a __proto__ field either)",
      });
    },
  });
  return out;
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

function locate(
  doc: Document,
  path: readonly (string | number)[],
  wantKey: boolean,
  at: (offset: number) => SourceLocation,
): SourceLocation {
  let node: unknown = doc.contents;
  let best: SourceLocation = at(rangeStart(node) ?? 0);
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) return best;
      const keyStart = rangeStart(pair.key);
      if (last && wantKey && keyStart !== undefined) return at(keyStart);
      node = pair.value;
      const start = rangeStart(node) ?? keyStart;
      if (start !== undefined) best = at(start);
    } else if (isSeq(node) && typeof segment === "number") {
      node = node.items[segment];
      const start = rangeStart(node);
      if (start === undefined) return best;
      best = at(start);
    } else {
      return best;
    }
  }
  return best;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}
