/** A parsed YAML document that answers "where is the value at this path?" for located errors. */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import type { Document, Node } from "yaml";
import type { SourceLocation } from "./suite-types.js";

export interface LocatedYaml {
  readonly value: unknown;
  /** The value at `path`, or with `key: true` the key naming it; the nearest ancestor when the path is missing. */
  locate(path: readonly (string | number)[], options?: { readonly key?: boolean }): SourceLocation;
}

export interface YamlSyntaxProblem {
  readonly code: "yaml_syntax_error" | "duplicate_key";
  readonly message: string;
  readonly location: SourceLocation;
}

export function parseLocatedYaml(text: string, file: string): { yaml: LocatedYaml | null; problems: YamlSyntaxProblem[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true });
  const at = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, col };
  };
  const problems = doc.errors.map((e): YamlSyntaxProblem => {
    const duplicate = e.code === "DUPLICATE_KEY";
    return {
      code: duplicate ? "duplicate_key" : "yaml_syntax_error",
      message: duplicate ? "duplicate key: a key may appear only once in a mapping" : (e.message.split("\n")[0] ?? e.message),
      location: at(e.pos[0]),
    };
  });
  if (problems.length > 0) return { yaml: null, problems };
  return { yaml: { value: doc.toJS({ maxAliasCount: 100 }) as unknown, locate: (path, o) => locate(doc, path, o?.key ?? false, at) }, problems: [] };
}

function locate(doc: Document, path: readonly (string | number)[], wantKey: boolean, at: (offset: number) => SourceLocation): SourceLocation {
  let node: unknown = doc.contents;
  let best = at(start(node) ?? 0);
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
      if (pair === undefined) return best;
      const keyStart = start(pair.key);
      if (i === path.length - 1 && wantKey && keyStart !== undefined) return at(keyStart);
      node = pair.value;
      const s = start(node) ?? keyStart;
      if (s !== undefined) best = at(s);
    } else if (isSeq(node) && typeof segment === "number") {
      node = node.items[segment];
      const s = start(node);
      if (s === undefined) return best;
      best = at(s);
    } else {
      return best;
    }
  }
  return best;
}

const start = (node: unknown): number | undefined => (node as Node | null | undefined)?.range?.[0];
